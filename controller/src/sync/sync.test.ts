import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createSync, RetryLater, type DataplaneControl } from './sync.ts';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import type { Backend, BackendPatch, DynamicBackend, DynamicCertificates, DynamicRoutes, Model, Snapshot } from '../model/types.ts';

const emptySnapshot: Snapshot = { ingresses: [], ingressClasses: [], services: [], endpointSlices: [], secrets: [], configMaps: [] };

function model(paths: string[], addresses: string[]): Model {
  const backend: Backend = {
    name: 'default-app-80', namespace: 'default', service: 'app', port: 80, loadBalance: 'round_robin', hash: null, affinity: null, routed: true,
    endpoints: addresses.map((address) => ({ address, port: 8080 })),
  };
  return {
    servers: [{
      hostname: 'app.test',
      locations: paths.map((path) => ({
        path, match: 'prefix', route: { kind: 'backend', backend: backend.name, key: `r ${backend.name} app.test default - app ${path}` }, ingress: null, policy: {},
      })),
    }],
    backends: [backend],
    tls: { certificates: [], hosts: [], defaultCertificate: null },
    settings: DEFAULT_SETTINGS,
    routes: [],
  };
}

/** A data plane that records what it was asked to do, in order. */
function fakeDataplane(): DataplaneControl & { log: string[]; certificatePushes: DynamicCertificates[]; routePushes: DynamicRoutes[]; failReload: boolean; busyReloads: number; holdReload: Promise<void> | null; failPush: number; failCertificates: number } {
  let started = false;
  const dp = {
    log: [] as string[],
    failReload: false,
    busyReloads: 0,
    holdReload: null as Promise<void> | null,
    failPush: 0,
    started: () => started,
    async start(_conf: string, version: string) { started = true; dp.log.push(`start ${version}`); },
    async reload(_conf: string, version: string) {
      dp.log.push(`reload ${version}`);
      if (dp.holdReload) await dp.holdReload;
      if (dp.busyReloads > 0) { dp.busyReloads--; throw new RetryLater('NGINX is restarting'); }
      if (dp.failReload) throw new Error('nginx: [emerg] bad');
      dp.log.push(`live ${version}`);
    },
    async pushBackends(backends: readonly DynamicBackend[]) {
      if (dp.failPush > 0) { dp.failPush--; throw new Error('connection refused'); }
      dp.log.push(`push ${backends.map((b) => b.endpoints.length).join(',')}`);
    },
    // Recorded apart from `log` so the backend-order assertions stay as they are.
    certificatePushes: [] as DynamicCertificates[],
    failCertificates: 0,
    async pushCertificates(certificates: DynamicCertificates) {
      if (dp.failCertificates > 0) {
        dp.failCertificates--;
        dp.log.push('certificates refused');
        throw new Error('PATCH /configuration/certificates refused: certificate default/tls: key is not a PEM private key');
      }
      dp.certificatePushes.push(certificates);
      if (certificates.certificates.length > 0) dp.log.push(`certificates ${certificates.certificates.length}`);
    },
    routePushes: [] as DynamicRoutes[],
    async pushRoutes(routes: DynamicRoutes) {
      dp.routePushes.push(routes);
    },
  };
  return dp;
}

/** `model` plus a second backend `default-other-80` with `others` endpoints (unused by any location: only its endpoints matter here). */
function withOther(addresses: string[], others: string[] | null): Model {
  const base = model(['/'], addresses);
  if (others === null) return base;
  const other: Backend = { ...base.backends[0]!, name: 'default-other-80', service: 'other', endpoints: others.map((address) => ({ address, port: 8080 })) };
  return { ...base, backends: [...base.backends, other] };
}

/** A patch as one log entry: `patch set=<name>:<endpoints>,… remove=<name>,…`. */
const describePatch = (patch: BackendPatch): string =>
  `patch set=${patch.set.map((b) => `${b.name}:${b.endpoints.length}`).join(',')} remove=${patch.remove.join(',')}`;

interface HarnessOptions {
  patch?: boolean;
  settleMs?: number;
  logLines?: Record<string, unknown>[];
  /** The data plane validates ahead: logs `ahead <version>`, waits for `hold`, then fails when `fail`. */
  ahead?: { fail?: boolean; hold?: Promise<void> };
}

function harness(options: HarnessOptions = {}) {
  let state = model(['/'], ['127.0.1.1']);
  let renders = 0;
  let builds = 0;
  const dp = fakeDataplane();
  if (options.patch === true) dp.patchBackends = async (patch) => { dp.log.push(describePatch(patch)); };
  const ahead = options.ahead;
  if (ahead) {
    dp.validateAhead = async (_conf, version) => {
      dp.log.push(`ahead ${version}`);
      await ahead.hold;
      if (ahead.fail === true) throw new Error('nginx: [emerg] bad');
    };
  }
  const sync = createSync({
    steps: {
      snapshot: () => emptySnapshot,
      build: () => {
        builds += 1;
        return { model: state, failures: [] };
      },
      render: (m) => {
        renders += 1;
        return { conf: 'conf', version: m.servers[0]!.locations.map((l) => l.path).join('+') };
      },
    },
    dataplane: dp,
    logger: options.logLines
      ? pino({ level: 'debug' }, { write: (line: string) => { options.logLines!.push(JSON.parse(line) as Record<string, unknown>); } })
      : pino({ level: 'silent' }),
    minIntervalMs: 0,
    reloadSettleMs: options.settleMs,
  });
  const set = (m: Model) => { state = m; };
  const step = async (m?: Model) => { if (m) set(m); sync.kick(); await sync.idle(); };
  return { dp, sync, step, set, renders: () => renders, builds: () => builds };
}

/** Waits until `cond` holds; fails after 2 s. */
async function until(cond: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`condition not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('sync: the first sync starts NGINX, then pushes endpoints', async () => {
  const { dp, sync, step } = harness();
  await step();
  assert.deepEqual(dp.log, ['start /', 'push 1']);
  assert.ok(sync.running());
  await sync.stop();
});

test('sync: identical state does nothing; endpoint changes push without a reload', async () => {
  const { dp, sync, step } = harness();
  await step();
  await step();
  await step(model(['/'], ['127.0.1.1', '127.0.1.2']));
  await step(model(['/'], []));
  assert.deepEqual(dp.log, ['start /', 'push 1', 'push 2', 'push 0']);
  await sync.stop();
});

test('sync: a new path pushes endpoints before it reloads', async () => {
  const { dp, sync, step } = harness();
  await step();
  await step(model(['/', '/api'], ['127.0.1.1', '127.0.1.2']));
  assert.deepEqual(dp.log, ['start /', 'push 1', 'push 2', 'reload /+/api', 'live /+/api']);
  assert.deepEqual(sync.running()!.servers[0]!.locations.map((l) => l.path), ['/', '/api']);
  await sync.stop();
});

test('sync: endpoint changes flow while a reload is still running', async () => {
  const { dp, sync, step, set } = harness();
  await step();
  let release!: () => void;
  dp.holdReload = new Promise((resolve) => { release = resolve; });
  const reloading = step(model(['/', '/api'], ['127.0.1.1']));
  await until(() => dp.log.includes('reload /+/api'));
  // an endpoint-only change is pushed although the reload has not finished
  set(model(['/', '/api'], ['127.0.1.1', '127.0.1.2', '127.0.1.3']));
  sync.kick();
  await until(() => dp.log.includes('push 3'));
  assert.ok(!dp.log.includes('live /+/api'), 'reload still held');
  release();
  await reloading;
  await sync.idle();
  assert.deepEqual(dp.log.filter((l) => l.startsWith('reload')), ['reload /+/api']);
  await sync.stop();
});

test('sync: a failed reload keeps the last good model and is not retried until the config changes', async () => {
  const { dp, sync, step } = harness();
  await step();
  dp.failReload = true;
  await step(model(['/', '/bad'], ['127.0.1.1']));
  assert.deepEqual(sync.running()!.servers[0]!.locations.map((l) => l.path), ['/']);
  await step(model(['/', '/bad'], ['127.0.1.1', '127.0.1.2']));
  assert.equal(dp.log.filter((l) => l === 'reload /+/bad').length, 1, 'same bad config not re-validated');
  assert.equal(dp.log.at(-1), 'push 2', 'endpoints still pushed while the config is bad');
  dp.failReload = false;
  await step(model(['/', '/good'], ['127.0.1.1']));
  assert.equal(dp.log.at(-1), 'live /+/good');
  await sync.stop();
});

test('sync: after the data plane lost its state everything is pushed again', async () => {
  const { dp, sync, step } = harness();
  await step();
  sync.dataplaneReset();
  await sync.idle();
  assert.deepEqual(dp.log, ['start /', 'push 1', 'push 1']);
  await sync.stop();
});

test('sync: a failed push is retried', async () => {
  const { dp, sync, step } = harness();
  await step();
  dp.failPush = 2;
  await step(model(['/'], ['127.0.1.1', '127.0.1.2']));
  assert.deepEqual(dp.log, ['start /', 'push 1', 'push 2']);
  await sync.stop();
});

test('sync: the first push failing after NGINX started is retried as a push, never as a reload to the version NGINX runs', async () => {
  const logLines: Record<string, unknown>[] = [];
  const { dp, sync, step } = harness({ logLines });
  dp.failPush = 1; // e.g. LUA_WORKERS_BEHIND: 250,000 endpoints took the workers longer than the wait
  await step();
  // Before: the scheduler learnt of the start only after the push, so the retry diffed against no
  // running configuration and reloaded NGINX to the version it runs, which nginx-manager.ts refuses.
  assert.deepEqual(dp.log, ['start /', 'push 1'], 'no reload after the start');
  assert.ok(sync.running(), 'NGINX runs the first configuration');
  assert.deepEqual(logLines.filter((l) => l.msg === 'sync').map((l) => [l.result, l.why]), [['dynamic', 'data plane empty']]);
  await sync.stop();
});

test('sync: a failing certificate push holds back neither endpoints, routes nor the reload; it is retried', async () => {
  const logLines: Record<string, unknown>[] = [];
  const { dp, sync, step } = harness({ logLines, patch: true });
  await step();
  dp.failCertificates = 3;
  const next = model(['/', '/api'], ['127.0.1.1', '127.0.1.2']);
  const certificate = { id: 'default/tls', secret: { namespace: 'default', name: 'tls' }, cert: 'C', key: 'K', names: ['app.test'], serial: '1', notAfter: '2030-01-01T00:00:00.000Z' };
  const routes = [{ key: 'r default-app-80 app.test default - app /api', backend: 'default-app-80', canary: null }] as unknown as Model['routes'];
  await step({ ...next, tls: { certificates: [certificate], hosts: [{ host: 'app.test', certificate: 'default/tls' }], defaultCertificate: null }, routes });
  const log = dp.log;
  assert.deepEqual(log.filter((entry) => entry.startsWith('push') || entry.startsWith('patch')), ['push 1', 'patch set=default-app-80:2 remove='],
    'the endpoints went once, with the failing certificates');
  assert.ok(log.indexOf('live /+/api') !== -1, `the reload went live: ${log.join('; ')}`);
  assert.ok(log.indexOf('live /+/api') < log.indexOf('certificates 1'), `live before the certificates got through: ${log.join('; ')}`);
  assert.equal(log.filter((entry) => entry === 'certificates refused').length, 3);
  assert.equal(dp.certificatePushes.at(-1)?.certificates[0]?.id, 'default/tls');
  assert.equal(dp.routePushes.length, 2, 'the routes went with the first push, not held back');
  assert.ok(logLines.some((line) => /certificates not pushed \(everything else was applied\): .*refused/.test(String((line.err as { message?: string } | undefined)?.message))),
    'the failure is logged saying what was still applied');
  await sync.stop();
});

test('sync: a reload refused because NGINX is restarting is retried soon, not held as bad', async () => {
  const { dp, sync, step } = harness();
  await step();
  dp.busyReloads = 1;
  await step(model(['/', '/api'], ['127.0.1.1']));
  assert.equal(sync.running()!.servers[0]!.locations.length, 1);
  await until(() => dp.log.includes('live /+/api'), 3000);
  assert.deepEqual(dp.log.filter((l) => l.startsWith('reload')), ['reload /+/api', 'reload /+/api']);
  await sync.stop();
});

const patchRows: { name: string; steps: Model[]; reset?: number; expected: string[] }[] = [
  {
    name: 'only the changed backend is sent',
    steps: [withOther(['127.0.1.1'], ['127.0.2.1']), withOther(['127.0.1.1'], ['127.0.2.1', '127.0.2.2'])],
    expected: ['start /', 'push 1,1', 'patch set=default-other-80:2 remove='],
  },
  {
    // The backend list is part of nginx.conf's input, so this also reloads (after the patch).
    name: 'a vanished backend is removed, the others are not sent',
    steps: [withOther(['127.0.1.1'], ['127.0.2.1']), withOther(['127.0.1.1'], null)],
    expected: ['start /', 'push 1,1', 'patch set= remove=default-other-80', 'reload /', 'live /'],
  },
  {
    name: 'after NGINX lost its state the full set is POSTed again',
    steps: [withOther(['127.0.1.1'], ['127.0.2.1']), withOther(['127.0.1.1'], ['127.0.2.1'])], reset: 1,
    expected: ['start /', 'push 1,1', 'push 1,1'],
  },
  {
    name: 'no change sends nothing',
    steps: [withOther(['127.0.1.1'], ['127.0.2.1']), withOther(['127.0.1.1'], ['127.0.2.1'])],
    expected: ['start /', 'push 1,1'],
  },
  {
    name: 'a new path patches before it reloads',
    steps: [model(['/'], ['127.0.1.1']), model(['/', '/api'], ['127.0.1.1', '127.0.1.2'])],
    expected: ['start /', 'push 1', 'patch set=default-app-80:2 remove=', 'reload /+/api', 'live /+/api'],
  },
];
for (const row of patchRows) {
  test(`sync with patches: ${row.name}`, async () => {
    const { dp, sync, step } = harness({ patch: true });
    for (const [i, next] of row.steps.entries()) {
      if (row.reset === i) { sync.dataplaneReset(); await sync.idle(); }
      await step(next);
    }
    assert.deepEqual(dp.log, row.expected);
    await sync.stop();
  });
}

test('sync with patches: after a failed push the next push is full', async () => {
  const { dp, sync, step } = harness({ patch: true });
  await step(withOther(['127.0.1.1'], ['127.0.2.1']));
  dp.patchBackends = async () => { throw new Error('connection reset'); };
  await step(withOther(['127.0.1.1'], ['127.0.2.1', '127.0.2.2']));
  dp.patchBackends = async (patch) => { dp.log.push(describePatch(patch)); };
  await until(() => dp.log.length > 2);
  await sync.idle();
  assert.deepEqual(dp.log, ['start /', 'push 1,1', 'push 1,2']);
  await sync.stop();
});

test('sync with a reload settle window: two static changes in it share one reload; endpoints do not wait', async () => {
  const { dp, sync, step, set } = harness({ settleMs: 150 });
  await step();
  set(model(['/', '/a'], ['127.0.1.1']));
  sync.kick();
  await until(() => dp.log.includes('push 1') && dp.log.length === 2);
  await new Promise((r) => setTimeout(r, 20));
  set(model(['/', '/a', '/b'], ['127.0.1.1', '127.0.1.2']));
  sync.kick();
  await until(() => dp.log.includes('push 2'));
  assert.ok(!dp.log.some((l) => l.startsWith('reload')), 'the endpoint push went out at once, the reload waits');
  await sync.idle();
  assert.deepEqual(dp.log.filter((l) => l.startsWith('reload') || l.startsWith('live')), ['reload /+/a+/b', 'live /+/a+/b']);
  await sync.stop();
});

const aheadRows = [
  { name: 'the settling change is validated before its window ends, then reloaded', fail: false },
  { name: 'a failed validation ahead leaves the reload to run (and report) as usual', fail: true },
];
for (const row of aheadRows) {
  test(`sync with a reload settle window and validation ahead: ${row.name}`, async () => {
    const { dp, sync, step, set, renders, builds } = harness({ settleMs: 150, ahead: { fail: row.fail } });
    await step();
    set(model(['/', '/a'], ['127.0.1.1']));
    sync.kick();
    await until(() => dp.log.includes('ahead /+/a'));
    assert.ok(!dp.log.some((l) => l.startsWith('reload')), 'validated while the window is still open');
    await sync.idle();
    assert.deepEqual(dp.log.filter((l) => /^(ahead|reload|live)/.test(l)), ['ahead /+/a', 'reload /+/a', 'live /+/a']);
    assert.equal(renders(), 2, 'rendered for the start and once for the change: the reload reuses the render ahead');
    assert.equal(builds(), 2, 'built for the start and once for the change: nothing changed when the window ended');
    await sync.stop();
  });
}

test('sync with a reload settle window and validation ahead: one at a time', async () => {
  let release = (): void => undefined;
  const hold = new Promise<void>((resolve) => { release = resolve; });
  const { dp, sync, step, set } = harness({ settleMs: 100, ahead: { hold } });
  await step();
  set(model(['/', '/a'], ['127.0.1.1']));
  sync.kick();
  await until(() => dp.log.includes('ahead /+/a'));
  set(model(['/', '/a', '/b'], ['127.0.1.1']));
  sync.kick();
  await new Promise((r) => setTimeout(r, 30));
  release();
  await sync.idle();
  assert.deepEqual(dp.log.filter((l) => /^(ahead|reload|live)/.test(l)), ['ahead /+/a', 'reload /+/a+/b', 'live /+/a+/b']);
  await sync.stop();
});

test('sync with a reload settle window: stop() does not wait for it', async () => {
  const { dp, sync, step, set } = harness({ settleMs: 10_000 });
  await step();
  set(model(['/', '/a'], ['127.0.1.1']));
  sync.kick();
  await until(() => dp.log.length === 3); // start, push, and the new model's push
  const started = Date.now();
  await sync.stop();
  assert.ok(Date.now() - started < 1000);
  assert.ok(!dp.log.some((l) => l.startsWith('reload')));
});

test('sync: one log line per sync says the decision, why, what changed and where the time went', async () => {
  const lines: Record<string, unknown>[] = [];
  const { sync, step } = harness({ logLines: lines });
  await step();
  await step();
  await step(model(['/'], ['127.0.1.1', '127.0.1.2']));
  await step(model(['/', '/api'], ['127.0.1.1', '127.0.1.2']));
  const syncs = lines.filter((l) => l.msg === 'sync');
  const acted = syncs.filter((l) => l.result !== 'skip');
  assert.deepEqual(acted.map((l) => [l.result, l.why]), [['reload', 'static change'], ['dynamic', 'endpoints'], ['reload', 'static change']]);
  assert.deepEqual(acted[1]!.changed, ['default-app-80']);
  assert.equal(acted[1]!.changedCount, 1);
  for (const line of syncs) {
    for (const key of ['ms', 'buildMs', 'renderMs', 'applyMs']) assert.equal(typeof line[key], 'number', `${key} in ${JSON.stringify(line)}`);
  }
  const skips = syncs.filter((l) => l.result === 'skip');
  assert.ok(skips.length >= 1, 'the unchanged second sync is logged');
  for (const skip of skips) assert.deepEqual([skip.why, skip.level], ['no change', 20], 'a skip is logged at debug level only');
  await sync.stop();
});

/** `m` serving a certificate for app.test (`pem` stands for its content). */
function withTls(m: Model, pem: string): Model {
  const certificate = { id: 'default/tls', secret: { namespace: 'default', name: 'tls' }, cert: pem, key: `key of ${pem}`, names: ['app.test'], serial: pem, notAfter: '2030-01-01T00:00:00.000Z' };
  return { ...m, tls: { certificates: [certificate], hosts: [{ host: 'app.test', certificate: certificate.id }], defaultCertificate: null } };
}

const whyRows: { name: string; next: Model; why: string }[] = [
  { name: 'new endpoints', next: model(['/'], ['127.0.1.1', '127.0.1.2']), why: 'endpoints' },
  { name: 'TLS added to the Ingress', next: withTls(model(['/'], ['127.0.1.1']), 'A'), why: 'certificates' },
  { name: 'TLS added and endpoints moved in one sync', next: withTls(model(['/'], ['127.0.1.2']), 'A'), why: 'endpoints and certificates' },
  { name: 'a new path', next: model(['/', '/api'], ['127.0.1.1']), why: 'static change' },
];
for (const row of whyRows) {
  test(`sync: the decision log line names what changed: ${row.name}`, async () => {
    const lines: Record<string, unknown>[] = [];
    const { sync, step } = harness({ logLines: lines });
    await step();
    const from = lines.length;
    await step(row.next);
    const acted = lines.slice(from).filter((l) => l.msg === 'sync' && l.result !== 'skip');
    assert.deepEqual(acted.map((l) => l.why), [row.why]);
    await sync.stop();
  });
}
