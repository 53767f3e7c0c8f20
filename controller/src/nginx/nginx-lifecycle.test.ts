// The master's life against the real NGINX runtime: a crash is restarted on
// the last good configuration, stop leaves no process behind, a start that
// cannot come up says why and leaves nothing running.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { fetchConfigVersion } from './config-version.ts';
import { NginxConfigError, NginxNotRunningError, NginxStartError } from './nginx-errors.ts';
import { createNginx } from './nginx-manager.ts';
import { childPids, isAlive, processGroupPids } from './nginx-processes.ts';
import { eventually, freePort, recordingLogger, requireDataplane, tempPrefix, testConf } from './nginx-test-support.ts';

async function setup(t: { after: (fn: () => Promise<void>) => void }, startMs = 30_000) {
  const dataplane = requireDataplane();
  const { prefix, remove } = await tempPrefix();
  const statusPort = await freePort();
  const { logger, lines } = recordingLogger();
  const restarted: string[] = [];
  const versionUrl = (): string => `http://127.0.0.1:${statusPort}/config-version`;
  const nginx = createNginx({
    dataplane,
    prefix,
    logger,
    versionUrl,
    timeouts: { startMs },
    restartBackoff: { initialMs: 50, maxMs: 200 },
    onRestart: async () => {
      restarted.push((await fetchConfigVersion(versionUrl(), 1_000)) ?? 'nothing');
    },
  });
  t.after(async () => {
    await nginx.stop();
    await remove();
  });
  return { nginx, prefix, statusPort, lines, restarted, served: () => fetchConfigVersion(versionUrl(), 1_000) };
}

describe('NGINX master lifecycle', () => {
  it('restarts a killed master on the last good configuration and calls onRestart', async (t) => {
    const { nginx, statusPort, prefix, lines, restarted, served } = await setup(t);
    // Unix sockets in the prefix and in its socket directory, as the fallback servers have
    // (http.njk): the killed master leaves them behind. The directory exists already, open
    // to all: NGINX would keep that mode, so each start must leave NGINX to make it anew.
    const sockets = join(prefix, 'sockets');
    await mkdir(sockets);
    await chmod(sockets, 0o777);
    const socket = `server { listen unix:${prefix}/fallback.sock; return 503; }
  server { listen unix:${sockets}/fallback.sock; client_body_temp_path ${sockets}; return 503; }`;
    const socketDirMode = async (): Promise<string> => ((await stat(sockets)).mode & 0o777).toString(8);
    await nginx.start(testConf({ statusPort, version: 'v1', extraHttp: socket }), 'v1');
    assert.equal(await socketDirMode(), '700');
    const good = testConf({ statusPort, version: 'v2', extraHttp: socket });
    await nginx.apply(good, 'v2');
    await assert.rejects(nginx.apply(testConf({ statusPort, version: 'v3', extraHttp: `${socket}\nnonsense;` }), 'v3'));
    const oldMaster = nginx.pid() ?? 0;
    await eventually('two workers', () => nginx.workerPids().length === 2);
    const oldWorkers = nginx.workerPids();

    process.kill(oldMaster, 'SIGKILL');

    await eventually('onRestart', () => restarted.length === 1);
    assert.deepEqual(restarted, ['v2'], 'onRestart runs once the restarted master serves');
    const newMaster = nginx.pid();
    assert.ok(newMaster !== null && newMaster !== oldMaster);
    assert.equal(await served(), 'v2');
    assert.equal(await socketDirMode(), '700');
    assert.equal(await readFile(join(prefix, 'nginx.conf'), 'utf8'), good);
    for (const pid of [oldMaster, ...oldWorkers]) assert.equal(isAlive(pid), false, `old process ${pid} is gone`);
    assert.equal(nginx.stats().restarts, 1);
    assert.ok(lines.some((line) => line.level === 50 && /exited unexpectedly/.test(line.msg)));
  });

  it('stops gracefully, leaves no process and does not restart', async (t) => {
    const { nginx, statusPort, served } = await setup(t);
    await nginx.start(testConf({ statusPort, version: 'v1' }), 'v1');
    const master = nginx.pid() ?? 0;
    await eventually('two workers', () => nginx.workerPids().length === 2);
    const workers = nginx.workerPids();

    await nginx.stop();

    assert.deepEqual(processGroupPids(master), []);
    for (const pid of [master, ...workers]) assert.equal(isAlive(pid), false);
    assert.equal(nginx.pid(), null);
    assert.equal(nginx.started(), false);
    await sleep(300); // longer than the restart backoff
    assert.deepEqual(childPids(process.pid), [], 'nothing was respawned');
    assert.equal(await served(), null);
    await assert.rejects(nginx.apply(testConf({ statusPort, version: 'v2' }), 'v2'), NginxNotRunningError);
  });

  it('stop() is graceful: a request in flight completes before NGINX exits', async (t) => {
    const { nginx, statusPort } = await setup(t);
    // An upstream that answers after 700 ms: with SIGKILL or SIGTERM the client would see a reset.
    const slow = createHttpServer((_req, res) => { setTimeout(() => res.end('finished'), 700); });
    await new Promise<void>((ready) => slow.listen(0, '127.0.0.1', ready));
    t.after(() => { slow.closeAllConnections(); slow.close(); });
    const upstream = (slow.address() as AddressInfo).port;
    const proxyPort = await freePort();
    const extraHttp = `  server { listen 127.0.0.1:${proxyPort}; location / { proxy_pass http://127.0.0.1:${upstream}; } }`;
    await nginx.start(testConf({ statusPort, version: 'v1', extraHttp }), 'v1');

    const inFlight = fetch(`http://127.0.0.1:${proxyPort}/`).then(async (res) => ({ status: res.status, body: await res.text() }));
    await sleep(200);
    await nginx.stop();
    assert.deepEqual(await inFlight, { status: 200, body: 'finished' });
    assert.equal(nginx.pid(), null);
  });

  const startFailures = [
    {
      name: 'invalid configuration',
      version: 'v1',
      startMs: 5_000,
      conf: (port: number, _taken: number) => testConf({ statusPort: port, version: 'v1', extraHttp: 'nonsense;' }),
      error: NginxConfigError,
      expect: /unknown directive "nonsense"/,
    },
    {
      name: 'a port already taken',
      version: 'v1',
      startMs: 5_000,
      conf: (port: number, taken: number) =>
        testConf({ statusPort: port, version: 'v1', extraHttp: `server { listen 127.0.0.1:${taken}; }` }),
      error: NginxStartError,
      expect: /exited \(code 1\).*bind\(\) to 127\.0\.0\.1:\d+ failed/,
    },
    {
      name: 'a version never served',
      version: 'v9',
      startMs: 3_000,
      conf: (port: number, _taken: number) => testConf({ statusPort: port, version: 'v1' }),
      error: NginxStartError,
      expect: /did not serve version v9 within 3000 ms \(last seen: v1\)/,
    },
  ];
  for (const row of startFailures) {
    it(`fails to start with ${row.name}, leaving nothing running`, async (t) => {
      const { nginx, statusPort } = await setup(t, row.startMs);
      const squatter = createServer();
      await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
      t.after(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
      const taken = (squatter.address() as { port: number }).port;

      await assert.rejects(nginx.start(row.conf(statusPort, taken), row.version), (err: unknown) => {
        assert.ok(err instanceof row.error, `got ${String(err)}`);
        assert.match(err.message, row.expect);
        return true;
      });
      assert.equal(nginx.pid(), null);
      assert.equal(nginx.started(), false);
      assert.deepEqual(childPids(process.pid), []);
    });
  }

  it('kills NGINX when the controller process exits', async (t) => {
    const { prefix, remove } = await tempPrefix();
    t.after(remove);
    const statusPort = await freePort();
    const script = join(prefix, 'exit-with-nginx.ts');
    await writeFile(
      script,
      `import { createNginx } from ${JSON.stringify(join(import.meta.dirname, 'nginx-manager.ts'))};
import { recordingLogger, requireDataplane, testConf } from ${JSON.stringify(join(import.meta.dirname, 'nginx-test-support.ts'))};
const nginx = createNginx({ dataplane: requireDataplane(), prefix: ${JSON.stringify(prefix)}, logger: recordingLogger().logger,
  versionUrl: () => 'http://127.0.0.1:${statusPort}/config-version' });
await nginx.start(testConf({ statusPort: ${statusPort}, version: 'v1' }), 'v1');
process.stdout.write(String(nginx.pid()));
process.exit(0);
`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, [script]);
    const master = Number(stdout);
    assert.ok(master > 0, `the child printed a master pid: ${stdout}`);
    await eventually('the NGINX group to be gone', () => processGroupPids(master).length === 0, 5_000);
  });
});
