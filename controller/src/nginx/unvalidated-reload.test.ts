// apply() with validate: false against the real NGINX: no `nginx -t` before
// the HUP; a configuration the master refuses is never applied (the old
// workers keep serving, the live file rolls back), the caller gets the
// NginxConfigError a validated reload throws, and the next apply() validates.
// start() with validate: false: no `nginx -t` before the master's first parse;
// a refused start is the NginxConfigError a validated start throws.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fetchConfigVersion } from './config-version.ts';
import { NginxConfigError } from './nginx-errors.ts';
import { createNginx, type NginxManager } from './nginx-manager.ts';
import { eventually, freePort, recordingLogger, requireDataplane, tempPrefix, testConf } from './nginx-test-support.ts';

interface Started {
  readonly nginx: NginxManager;
  readonly prefix: string;
  readonly statusPort: number;
  served(): Promise<string | null>;
}

/** `conf` logging to <prefix>/error.log, as the rendered configuration does, instead of stderr. */
const toFile = (conf: string, prefix: string): string => conf.replace('error_log stderr notice;', `error_log ${prefix}/error.log notice;`);

async function started(t: TestContext, errorLogFile = false): Promise<Started & { conf(version: string, extraHttp?: string): string }> {
  const { prefix, remove } = await tempPrefix();
  const statusPort = await freePort();
  const versionUrl = (): string => `http://127.0.0.1:${statusPort}/config-version`;
  const nginx = createNginx({ dataplane: requireDataplane(), prefix, logger: recordingLogger().logger, versionUrl, timeouts: { reloadMs: 10_000 } });
  t.after(async () => {
    await nginx.stop();
    await remove();
  });
  const conf = (version: string, extraHttp?: string): string => {
    const text = testConf({ statusPort, version, ...(extraHttp === undefined ? {} : { extraHttp }) });
    return errorLogFile ? toFile(text, prefix) : text;
  };
  await nginx.start(conf('v1'), 'v1');
  await eventually('two workers', () => nginx.workerPids().length === 2);
  return { nginx, prefix, statusPort, conf, served: () => fetchConfigVersion(versionUrl(), 1_000) };
}

describe('apply() without nginx -t', () => {
  it('a refusal the master logs only to its error_log file ends the wait at once, not at the reload timeout', async (t) => {
    const { nginx, served, conf } = await started(t, true);
    const began = Date.now();
    const err = await nginx.apply(conf('v2', 'bogus_directive on;'), 'v2', { validate: false }).then(
      () => assert.fail('apply accepted an invalid configuration'),
      (e: unknown) => e,
    );
    const ms = Date.now() - began;
    assert.ok(err instanceof NginxConfigError, `got ${String(err)}`);
    assert.ok(ms < 5_000, `refused after ${ms} ms; the reload timeout is 10 s`);
    assert.equal(await served(), 'v1');
  });

  it('reloads a good configuration with no nginx -t run', async (t) => {
    const { nginx, served, statusPort } = await started(t);
    await nginx.apply(testConf({ statusPort, version: 'v2' }), 'v2', { validate: false });
    assert.equal(await served(), 'v2');
    const stats = nginx.stats();
    assert.equal(stats.validations, 1, 'only the start ran nginx -t');
    assert.equal(stats.unvalidatedReloads, 1);
    assert.equal(stats.reloads, 1);
  });

  const rows = [
    { name: 'unknown directive', extraHttp: 'bogus_directive on;', expect: /unknown directive "bogus_directive"/ },
    { name: 'unbalanced brace', extraHttp: 'server {', expect: /unexpected end of file/ },
    { name: 'missing include', extraHttp: 'include does-not-exist.conf;', expect: /does-not-exist\.conf/ },
  ];
  for (const row of rows) {
    it(`a configuration the master refuses (${row.name}) is never applied; the error is nginx -t's; the next apply validates`, async (t) => {
      const { nginx, served, statusPort, prefix } = await started(t);
      const liveBefore = await readFile(join(prefix, 'nginx.conf'), 'utf8');
      const workersBefore = nginx.workerPids();

      const err = await nginx.apply(testConf({ statusPort, version: 'v2', extraHttp: row.extraHttp }), 'v2', { validate: false }).then(
        () => assert.fail('apply accepted an invalid configuration'),
        (e: unknown) => e,
      );

      assert.ok(err instanceof NginxConfigError, `got ${String(err)}`);
      assert.match(err.nginxOutput, row.expect);
      assert.equal(err.refused, true);
      assert.equal(await served(), 'v1');
      assert.deepEqual(nginx.workerPids(), workersBefore, 'the old workers keep serving');
      assert.equal(await readFile(join(prefix, 'nginx.conf'), 'utf8'), liveBefore);
      assert.equal(nginx.liveVersion(), 'v1');
      const stats = nginx.stats();
      assert.deepEqual([stats.reloads, stats.reloadFailures, stats.invalidConfigs, stats.validations, stats.unvalidatedReloads], [0, 1, 1, 2, 1]);

      // Not confirmed once: the next reload runs nginx -t even when asked not to.
      await nginx.apply(testConf({ statusPort, version: 'v3' }), 'v3', { validate: false });
      assert.equal(await served(), 'v3');
      assert.deepEqual([nginx.stats().validations, nginx.stats().unvalidatedReloads], [3, 1]);
      // Confirmed again: trusted again.
      await nginx.apply(testConf({ statusPort, version: 'v4' }), 'v4', { validate: false });
      assert.deepEqual([nginx.stats().validations, nginx.stats().unvalidatedReloads, nginx.stats().reloads], [3, 2, 2]);
    });
  }
});

describe('start() without nginx -t', () => {
  async function manager(t: TestContext): Promise<{ nginx: NginxManager; statusPort: number; prefix: string }> {
    const { prefix, remove } = await tempPrefix();
    const statusPort = await freePort();
    const nginx = createNginx({ dataplane: requireDataplane(), prefix, logger: recordingLogger().logger, versionUrl: () => `http://127.0.0.1:${statusPort}/config-version` });
    t.after(async () => {
      await nginx.stop();
      await remove();
    });
    return { nginx, statusPort, prefix };
  }

  it('starts on a good configuration with no nginx -t run: one parse, the master\'s', async (t) => {
    const { nginx, statusPort } = await manager(t);
    await nginx.start(testConf({ statusPort, version: 'v1' }), 'v1', { validate: false });
    assert.equal(await fetchConfigVersion(`http://127.0.0.1:${statusPort}/config-version`, 1_000), 'v1');
    assert.equal(nginx.stats().validations, 0);
    assert.equal(nginx.liveVersion(), 'v1');
  });

  it('a configuration the master refuses fails the start with nginx -t\'s NginxConfigError, and nothing runs', async (t) => {
    const { nginx, statusPort } = await manager(t);
    const err = await nginx.start(testConf({ statusPort, version: 'v1', extraHttp: 'bogus_directive on;' }), 'v1', { validate: false }).then(
      () => assert.fail('start accepted an invalid configuration'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof NginxConfigError, `got ${String(err)}`);
    assert.match(err.nginxOutput, /unknown directive "bogus_directive"/);
    assert.equal(err.refused, true);
    assert.equal(nginx.stats().validations, 1, 'nginx -t ran once, after the failed start');
    assert.equal(nginx.started(), false);
    assert.equal(nginx.pid(), null);
    // The next start (the sync's, without the Ingress at fault) goes through.
    await nginx.start(testConf({ statusPort, version: 'v2' }), 'v2', { validate: false });
    assert.equal(nginx.liveVersion(), 'v2');
  });
});
