// The preview of added Ingresses (pending-preview.ts, preview-push.ts): which
// changes are previewed, which of their hosts, which backends go first; and
// the sync: backends and pending set reach Lua before the build of the whole
// model, and that build then pushes nothing more for them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Ingress } from '@kubernetes/client-node';
import { pino } from 'pino';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import type { Backend, Location, Model, Server, Snapshot } from '../model/types.ts';
import type { DynamicPending } from './pending-hosts.ts';
import { addedIngresses, previewPending } from './pending-preview.ts';
import { createSync, type DataplaneControl } from './sync.ts';

const backendOf = (host: string): Backend => ({
  name: `be-${host}`, namespace: 'ns', service: host, port: 80, endpoints: [{ address: '127.0.0.2', port: 80 }], loadBalance: 'round_robin', hash: null, affinity: null, routed: true,
} as Backend);

const locationOf = (host: string): Location => ({
  path: '/', match: 'prefix', ingress: { namespace: 'ns', name: host }, policy: {},
  route: { kind: 'backend', backend: `be-${host}`, key: `- be-${host} ${host} ns ${host} ${host} /` },
});

const CATCH_ALL: Server = { hostname: '_', locations: [{ path: '/', match: 'prefix', route: { kind: 'not-found' }, ingress: null, policy: {} }] };

function model(hosts: readonly string[], extra: Partial<Server> = {}): Model {
  const servers: Server[] = hosts.map((hostname) => ({ hostname, locations: [locationOf(hostname)], ...extra }));
  return { servers: [CATCH_ALL, ...servers], backends: hosts.map(backendOf), tls: { certificates: [], hosts: [], defaultCertificate: null }, settings: DEFAULT_SETTINGS, routes: [] };
}

const ingress = (host: string, tls = false): V1Ingress => Object.freeze({
  metadata: { namespace: 'ns', name: host }, spec: { rules: [{ host }], ...(tls ? { tls: [{ hosts: [host] }] } : {}) },
}) as V1Ingress;

function snapshot(ingresses: readonly V1Ingress[], base?: Snapshot): Snapshot {
  return { ingresses, ingressClasses: base?.ingressClasses ?? [], services: [], endpointSlices: [], secrets: [], configMaps: base?.configMaps ?? [] };
}

const hostOf = (i: V1Ingress): string => i.spec?.rules?.[0]?.host ?? '';

void describe('addedIngresses: only a change that adds Ingresses is previewed', () => {
  const old = ingress('old.test');
  const before = snapshot([old]);
  const rows: readonly { name: string; after: Snapshot; want: string[] | null }[] = [
    { name: 'one added', after: snapshot([old, ingress('new.test')], before), want: ['new.test'] },
    { name: 'two added', after: snapshot([ingress('a.test'), old, ingress('b.test')], before), want: ['a.test', 'b.test'] },
    { name: 'nothing added', after: snapshot([old], before), want: null },
    { name: 'one replaced by another (a removal)', after: snapshot([ingress('new.test')], before), want: null },
    { name: 'one updated (a new object) beside one added', after: snapshot([ingress('old.test'), ingress('new.test')], before), want: null },
    { name: 'the IngressClasses changed', after: { ...snapshot([old, ingress('new.test')], before), ingressClasses: [] }, want: null },
    { name: 'the ConfigMaps changed', after: { ...snapshot([old, ingress('new.test')], before), configMaps: [] }, want: null },
    { name: 'an added Ingress with spec.tls (its certificate comes with the full sync)', after: snapshot([old, ingress('new.test', true)], before), want: null },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      assert.deepEqual(addedIngresses(before, row.after)?.map(hostOf) ?? null, row.want);
    });
  }
});

void describe('previewPending: new hosts join the pending set, with the backends Lua lacks', () => {
  const running = model(['old.test']);
  const none: DynamicPending = { hosts: [] };
  const rows: readonly { name: string; known?: Model[]; held?: DynamicPending; lua?: Model; preview: Model; hosts: string[] | null; backends?: string[] }[] = [
    { name: 'a new host and its backend', preview: model(['new.test']), hosts: ['new.test'], backends: ['be-new.test'] },
    { name: 'a host NGINX runs waits for the full build', preview: model(['old.test']), hosts: null },
    { name: 'a host of the last full build (say an annotated one settling) waits', known: [model(['old.test', 'new.test'])], preview: model(['new.test']), hosts: null },
    { name: 'an alias in the reload\'s target waits', known: [model(['x.test'], { aliases: ['new.test'] })], preview: model(['new.test']), hosts: null },
    { name: 'a host already pending waits (the full build merges its Ingresses)', held: { hosts: [{ host: 'new.test', paths: [] }] }, preview: model(['new.test']), hosts: null },
    { name: 'a backend Lua holds is not pushed again', lua: model(['old.test', 'new.test']), preview: model(['new.test']), hosts: ['new.test'], backends: [] },
    { name: 'a host that is not plain waits (aliases)', preview: model(['new.test'], { aliases: ['x.new.test'] }), hosts: null },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const result = previewPending(running, row.known ?? [running], row.preview, row.held ?? none, row.lua ?? running);
      assert.deepEqual(result?.hosts ?? null, row.hosts);
      if (row.backends !== undefined) assert.deepEqual(result?.backends.map((b) => b.name), row.backends);
    });
  }

  void it('the set pushed is what Lua holds plus the new hosts, sorted', () => {
    const held: DynamicPending = { hosts: [{ host: 'b.test', paths: [] }] };
    const result = previewPending(running, [running], model(['c.test', 'a.test']), held, running);
    assert.deepEqual(result?.pending.hosts.map((h) => h.host), ['a.test', 'b.test', 'c.test']);
  });
});

/** Records pushes, builds and reloads in order; reloads wait for release(). */
function recordingDataplane(log: string[]): DataplaneControl & { release(): void } {
  let started = false;
  let release: () => void = () => undefined;
  return {
    release: () => release(),
    started: () => started,
    async start() { started = true; },
    async reload(_conf, version) {
      log.push(`reload ${version} started`);
      await new Promise<void>((done) => { release = done; });
      log.push(`reload ${version} confirmed`);
    },
    async pushBackends() { log.push('backends (full)'); },
    async patchBackends(patch, options) { log.push(`backends patch [${patch.set.map((b) => b.name).join(',')}]${options?.stored === true ? ' stored' : ''}`); },
    async pushCertificates() { /* not recorded */ },
    async pushRoutes() { /* not recorded */ },
    async pushPending(pending) { log.push(`pending [${pending.hosts.map((h) => h.host).join(',')}]`); },
  };
}

void describe('sync: the hosts of added Ingresses reach Lua before the build of the whole model', () => {
  const run = async (change: (before: Snapshot) => Snapshot, withPreview = true): Promise<string[]> => {
    const log: string[] = [];
    const dp = recordingDataplane(log);
    let state = snapshot([ingress('old.test')]);
    const toModel = (s: Snapshot): Model => model(s.ingresses.map(hostOf));
    const sync = createSync({
      steps: {
        snapshot: () => state,
        build: (s) => { log.push(`build [${s.ingresses.map(hostOf).join(',')}]`); return { model: toModel(s), failures: [] }; },
        ...(withPreview ? { preview: (s: Snapshot) => ({ model: toModel(s), failures: [] }) } : {}),
        render: (m) => ({ conf: 'conf', version: m.servers.map((s) => s.hostname).join('+') }),
      },
      dataplane: dp, logger: pino({ level: 'silent' }), minIntervalMs: 0, reloadSettleMs: 0,
    });
    sync.kick();
    await sync.idle();
    log.length = 0;
    state = change(state);
    sync.kick();
    for (let i = 0; i < 100 && !log.some((line) => line.endsWith('started')); i++) await new Promise((done) => setTimeout(done, 5));
    dp.release();
    await sync.idle();
    await sync.stop();
    return log;
  };

  void it('an added plain Ingress: its backend (stored: the pending push waits for both), its host, then the full build (which pushes nothing more for it)', async () => {
    assert.deepEqual(await run((s) => snapshot([...s.ingresses, ingress('new.test')], s)), [
      'backends patch [be-new.test] stored', 'pending [new.test]', 'build [old.test,new.test]', 'reload _+old.test+new.test started',
      'reload _+old.test+new.test confirmed', 'pending []',
    ]);
  });

  void it('an update beside the addition: no preview, the full build pushes as before', async () => {
    assert.deepEqual(await run((s) => snapshot([ingress('old.test'), ingress('new.test')], s)), [
      'build [old.test,new.test]', 'backends patch [be-new.test]', 'pending [new.test]', 'reload _+old.test+new.test started',
      'reload _+old.test+new.test confirmed', 'pending []',
    ]);
  });

  void it('an object change while the preview pushes is built by the next sync (the snapshot taken before it is not kept)', async () => {
    const log: string[] = [];
    const dp = recordingDataplane(log);
    let state = snapshot([ingress('old.test')]);
    const toModel = (s: Snapshot): Model => model(s.ingresses.map(hostOf));
    let changed = false;
    const sync = createSync({
      steps: {
        snapshot: () => state,
        build: (s) => { log.push(`build [${s.ingresses.map(hostOf).join(',')}]`); return { model: toModel(s), failures: [] }; },
        preview: (s) => ({ model: toModel(s), failures: [] }),
        render: (m) => ({ conf: 'conf', version: m.servers.map((s) => s.hostname).join('+') }),
      },
      dataplane: {
        ...dp,
        async patchBackends(patch, options) {
          await dp.patchBackends?.(patch, options);
          if (changed) return;
          changed = true; // the informer delivers another Ingress while the preview waits for Lua
          state = snapshot([...state.ingresses, ingress('later.test')], state);
          sync.kick();
        },
      },
      logger: pino({ level: 'silent' }), minIntervalMs: 0, reloadSettleMs: 0,
    });
    sync.kick();
    await sync.idle();
    state = snapshot([...state.ingresses, ingress('new.test')], state);
    sync.kick();
    for (let i = 0; i < 200 && !log.some((line) => line.includes('later.test') && line.endsWith('started')); i++) {
      dp.release();
      await new Promise((done) => setTimeout(done, 5));
    }
    dp.release();
    await sync.idle();
    await sync.stop();
    assert.ok(log.includes('build [old.test,new.test,later.test]'), log.join('\n'));
    assert.ok(log.some((line) => line.includes('+later.test') && line.endsWith('confirmed')), log.join('\n'));
  });

  void it('without a preview step the order is as before', async () => {
    assert.deepEqual((await run((s) => snapshot([...s.ingresses, ingress('new.test')], s), false)).slice(0, 3), [
      'build [old.test,new.test]', 'backends patch [be-new.test]', 'pending [new.test]',
    ]);
  });
});
