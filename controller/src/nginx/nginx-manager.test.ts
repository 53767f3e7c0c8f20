// The manager against the real NGINX runtime: start, confirmed reloads,
// refused configurations, reloads that fail in the master.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fetchConfigVersion } from './config-version.ts';
import { NginxConfigError, NginxReloadError } from './nginx-errors.ts';
import { createNginx, type NginxManager } from './nginx-manager.ts';
import { eventually, freePort, recordingLogger, requireDataplane, tempPrefix, testConf } from './nginx-test-support.ts';

interface Harness {
  readonly nginx: NginxManager;
  readonly prefix: string;
  readonly statusPort: number;
  readonly lines: ReturnType<typeof recordingLogger>['lines'];
  served(): Promise<string | null>;
}

/** How long `nginx -t` takes with startedNginx's slowTestMs: long enough to be caught running. */
const SLOW_TEST_MS = 1500;

/** slowTestMs: every `nginx -t` first sleeps this long (the master does not), to catch one running. */
async function startedNginx(t: TestContext, reloadMs = 10_000, slowTestMs = 0): Promise<Harness> {
  const real = requireDataplane();
  const slow = `case " $* " in *" -t "*) sleep ${slowTestMs / 1000} >/dev/null 2>&1;; esac; exec "$@"`;
  const dataplane = slowTestMs > 0 ? { ...real, command: ['sh', '-c', slow, 'sh', ...real.command] } : real;
  const { prefix, remove } = await tempPrefix();
  const statusPort = await freePort();
  const { logger, lines } = recordingLogger();
  const versionUrl = (): string => `http://127.0.0.1:${statusPort}/config-version`;
  const nginx = createNginx({ dataplane, prefix, logger, versionUrl, timeouts: { reloadMs } });
  t.after(async () => {
    await nginx.stop();
    await remove();
  });
  await nginx.start(testConf({ statusPort, version: 'v1' }), 'v1');
  // Both workers up, so "every worker changed" below means something.
  await eventually('two workers', () => nginx.workerPids().length === 2);
  return { nginx, prefix, statusPort, lines, served: () => fetchConfigVersion(versionUrl(), 1_000) };
}

describe('createNginx against the real NGINX', () => {
  it('starts the master and serves the configuration version', async (t) => {
    const { nginx, served, prefix } = await startedNginx(t);
    assert.equal(await served(), 'v1');
    assert.equal(nginx.liveVersion(), 'v1');
    assert.ok(nginx.started());
    assert.ok((nginx.pid() ?? 0) > 0);
    assert.deepEqual(nginx.stats(), { reloads: 0, reloadFailures: 0, invalidConfigs: 0, validations: 1, restarts: 0, unvalidatedReloads: 0, lastReload: null });
    assert.match(await readFile(join(prefix, 'nginx.conf'), 'utf8'), /return 200 "v1"/);
  });

  it('reloads a changed configuration: same master, new workers, counted', async (t) => {
    const { nginx, served, statusPort, prefix } = await startedNginx(t);
    const masterBefore = nginx.pid();
    const workersBefore = nginx.workerPids();
    const appPort = await freePort();
    const extraHttp = `server { listen 127.0.0.1:${appPort}; location / { return 200 "app"; } }`;
    const conf = testConf({ statusPort, version: 'v2', extraHttp });

    await nginx.apply(conf, 'v2');

    // Confirmed means every new connection reaches a new worker, not just one.
    for (let i = 0; i < 20; i += 1) assert.equal(await served(), 'v2', `connection ${i} after the reload`);
    assert.equal(await fetchConfigVersion(`http://127.0.0.1:${appPort}/`, 1_000), 'app');
    assert.equal(nginx.pid(), masterBefore);
    await eventually('a new set of workers', () => {
      const now = nginx.workerPids();
      return now.length === 2 && now.every((pid) => !workersBefore.includes(pid));
    });
    const stats = nginx.stats();
    assert.equal(stats.reloads, 1);
    assert.equal(stats.lastReload?.ok, true);
    assert.equal(nginx.liveVersion(), 'v2');
    assert.equal(await readFile(join(prefix, 'nginx.conf'), 'utf8'), conf);
  });

  describe('validation ahead of apply()', () => {
    const rows = [
      { name: 'the same configuration reloads without a second nginx -t', ahead: 'v2', applied: 'v2', validations: 2 },
      { name: 'a configuration changed since is validated again', ahead: 'v2', applied: 'v3', validations: 3 },
    ];
    for (const row of rows) {
      it(row.name, async (t) => {
        const { nginx, served, statusPort } = await startedNginx(t);
        await nginx.validateAhead(testConf({ statusPort, version: row.ahead }), row.ahead);
        assert.equal(await served(), 'v1', 'validating ahead signals nothing');
        assert.equal(nginx.stats().reloads, 0);

        await nginx.apply(testConf({ statusPort, version: row.applied }), row.applied);

        assert.equal(await served(), row.applied);
        assert.equal(nginx.stats().validations, row.validations, 'nginx -t runs: start, ahead, and apply only when the text changed');
        assert.equal(nginx.stats().reloads, 1);
      });
    }

    it('an invalid configuration validated ahead fails apply() with the same error, parsed once', async (t) => {
      const { nginx, served, statusPort } = await startedNginx(t);
      const conf = testConf({ statusPort, version: 'v2', extraHttp: 'bogus_directive on;' });
      const ahead = await nginx.validateAhead(conf, 'v2').then(() => assert.fail('accepted ahead'), (e: unknown) => e);
      const applied = await nginx.apply(conf, 'v2').then(() => assert.fail('applied'), (e: unknown) => e);

      assert.ok(applied instanceof NginxConfigError, `got ${String(applied)}`);
      assert.equal(applied, ahead);
      assert.match(applied.message, /unknown directive "bogus_directive"/);
      assert.deepEqual({ ...nginx.stats(), lastReload: null }, { reloads: 0, reloadFailures: 0, invalidConfigs: 1, validations: 2, restarts: 0, unvalidatedReloads: 0, lastReload: null });
      assert.equal(await served(), 'v1');
    });

    it('apply() of another text cancels a validation ahead that is still parsing', async (t) => {
      const { nginx, served, statusPort } = await startedNginx(t, 10_000, SLOW_TEST_MS);
      const ahead = nginx.validateAhead(testConf({ statusPort, version: 'v2' }), 'v2');
      await eventually('nginx -t of the validation ahead running', () => nginx.stats().validations === 2);
      const began = Date.now();

      await nginx.apply(testConf({ statusPort, version: 'v3' }), 'v3');
      await ahead;

      assert.equal(await served(), 'v3');
      // Waiting behind the cancelled parse would take two slow parses; apply()'s own is one.
      assert.ok(Date.now() - began < 2 * SLOW_TEST_MS, `apply() took ${Date.now() - began} ms`);
      assert.deepEqual({ ...nginx.stats(), lastReload: null }, { reloads: 1, reloadFailures: 0, invalidConfigs: 0, validations: 3, restarts: 0, unvalidatedReloads: 0, lastReload: null });
    });

    it('the live version is not validated again', async (t) => {
      const { nginx, statusPort } = await startedNginx(t);
      await nginx.validateAhead(testConf({ statusPort, version: 'v1' }), 'v1');
      assert.equal(nginx.stats().validations, 1);
    });
  });

  const invalidRows = [
    { name: 'unknown directive', extraHttp: 'bogus_directive on;', expect: /unknown directive "bogus_directive"/ },
    { name: 'unbalanced brace', extraHttp: 'server {', expect: /unexpected end of file/ },
    { name: 'invalid value', extraHttp: 'keepalive_timeout forever;', expect: /invalid value|is invalid/ },
    { name: 'missing include', extraHttp: 'include does-not-exist.conf;', expect: /does-not-exist\.conf/ },
  ];
  for (const row of invalidRows) {
    it(`refuses an invalid configuration (${row.name}) and keeps serving the old one`, async (t) => {
      const { nginx, served, statusPort, prefix } = await startedNginx(t);
      const liveBefore = await readFile(join(prefix, 'nginx.conf'), 'utf8');
      const workersBefore = nginx.workerPids();
      const conf = testConf({ statusPort, version: 'v2', extraHttp: row.extraHttp });

      const err = await nginx.apply(conf, 'v2').then(
        () => assert.fail('apply accepted an invalid configuration'),
        (e: unknown) => e,
      );

      assert.ok(err instanceof NginxConfigError, `got ${String(err)}`);
      assert.equal(err.code, 'NGINX_CONFIG_INVALID');
      assert.match(err.message, row.expect);
      assert.match(err.nginxOutput, row.expect);
      assert.equal(await served(), 'v1');
      assert.equal(await readFile(join(prefix, 'nginx.conf'), 'utf8'), liveBefore);
      assert.deepEqual(nginx.workerPids(), workersBefore);
      assert.equal(nginx.liveVersion(), 'v1');
      assert.deepEqual(
        { ...nginx.stats(), lastReload: null },
        { reloads: 0, reloadFailures: 0, invalidConfigs: 1, validations: 2, restarts: 0, unvalidatedReloads: 0, lastReload: null },
      );
    });
  }

  it('reports a reload the master refuses (port taken) and rolls the live file back', async (t) => {
    const { nginx, served, statusPort, prefix, lines } = await startedNginx(t, 5_000);
    const liveBefore = await readFile(join(prefix, 'nginx.conf'), 'utf8');
    // `nginx -t` does not bind, so this passes validation and fails only in the master.
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
    const takenPort = (squatter.address() as { port: number }).port;
    const extraHttp = `server { listen 127.0.0.1:${takenPort}; location / { return 200 "app"; } }`;

    const err = await nginx.apply(testConf({ statusPort, version: 'v2', extraHttp }), 'v2').then(
      () => assert.fail('apply confirmed a reload that cannot bind'),
      (e: unknown) => e,
    );

    assert.ok(err instanceof NginxReloadError, `got ${String(err)}`);
    assert.equal(err.code, 'NGINX_RELOAD_FAILED');
    assert.match(err.message, /bind\(\) to 127\.0\.0\.1:\d+ failed/);
    assert.equal(await served(), 'v1');
    assert.equal(await readFile(join(prefix, 'nginx.conf'), 'utf8'), liveBefore);
    assert.equal(nginx.stats().reloadFailures, 1);
    assert.equal(nginx.stats().reloads, 0);
    assert.equal(nginx.stats().lastReload?.ok, false);
    assert.ok(lines.some((line) => line.level === 50 && /bind\(\)/.test(line.msg)), 'the [emerg] line is logged as error');
  });

  const badVersionRows = [
    { name: 'the version already live', version: 'v1', expect: /already live/ },
    { name: 'an empty version', version: '', expect: /must be non-empty/ },
    { name: 'a version with whitespace', version: 'v 2', expect: /without whitespace/ },
  ];
  for (const row of badVersionRows) {
    it(`refuses to apply ${row.name}`, async (t) => {
      const { nginx, statusPort, served } = await startedNginx(t);
      await assert.rejects(nginx.apply(testConf({ statusPort, version: 'v2' }), row.version), row.expect);
      assert.equal(nginx.stats().reloads, 0);
      assert.equal(await served(), 'v1');
    });
  }
});
