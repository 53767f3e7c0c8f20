// A reload waits at least three times the last parse NGINX took, whatever the
// configured reload timeout: a configuration whose parse is slow (here an
// init_by_lua that spins for 1 s in the master, at its start and on every
// HUP) is confirmed, not given up on while the master still parses it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fetchConfigVersion } from './config-version.ts';
import { createNginx } from './nginx-manager.ts';
import { freePort, recordingLogger, requireDataplane, tempPrefix, testConf } from './nginx-test-support.ts';

const SPIN_SECONDS = 1;
const RELOAD_TIMEOUT_MS = 300;

describe('reload wait', () => {
  for (const validate of [true, false]) {
    it(`a parse slower than the reload timeout is waited for (${validate ? 'with' : 'without'} nginx -t)`, async (t) => {
      const dataplane = requireDataplane();
      const { prefix, remove } = await tempPrefix();
      const statusPort = await freePort();
      const versionUrl = (): string => `http://127.0.0.1:${statusPort}/config-version`;
      const nginx = createNginx({ dataplane, prefix, logger: recordingLogger().logger, versionUrl, timeouts: { reloadMs: RELOAD_TIMEOUT_MS } });
      t.after(async () => {
        await nginx.stop();
        await remove();
      });
      const slow = `lua_package_path "${dataplane.luaPackagePath}";
  init_by_lua_block { local started = os.clock() while os.clock() - started < ${SPIN_SECONDS} do end }`;
      const conf = (version: string): string =>
        `${dataplane.modules.map((m) => `load_module "${m}";`).join('\n')}\n${testConf({ statusPort, version, extraHttp: slow })}`;
      await nginx.start(conf('v1'), 'v1');

      await nginx.apply(conf('v2'), 'v2', { validate });

      assert.equal(await fetchConfigVersion(versionUrl(), 1_000), 'v2');
      assert.equal(nginx.stats().reloads, 1);
      assert.ok((nginx.stats().lastReload?.durationMs ?? 0) > RELOAD_TIMEOUT_MS, 'the parse took longer than the reload timeout');
    });
  }
});
