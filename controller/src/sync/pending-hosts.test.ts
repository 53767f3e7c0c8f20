// Which hosts of the next model become pending (served by the catch-all
// through Lua until their reload) and which wait for the reload; and the
// sync: the set is pushed in the sync that starts the reload, after the
// backends, and shrinks once that reload is confirmed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import type { Backend, Location, Model, Policy, Server } from '../model/types.ts';
import { pendingHosts, type DynamicPending } from './pending-hosts.ts';
import { createSync, type DataplaneControl } from './sync.ts';

function backend(name: string, loadBalance: Backend['loadBalance'] = 'round_robin'): Backend {
  return { name, namespace: 'ns', service: name, port: 80, endpoints: [{ address: '127.0.0.2', port: 80 }], loadBalance, hash: null, affinity: null, routed: true } as Backend;
}

function location(host: string, path: string, match: Location['match'] = 'prefix', policy: Policy = {}, flags = 'r'): Location {
  return {
    path, match, ingress: { namespace: 'ns', name: host }, policy,
    route: { kind: 'backend', backend: 'web', key: `${flags} web ${host} ns ${host} web ${path}` },
  };
}

function server(hostname: string, locations?: readonly Location[], extra: Partial<Server> = {}): Server {
  return { hostname, locations: locations ?? [location(hostname, '/')], ...extra };
}

const CATCH_ALL = server('_', [{ path: '/', match: 'prefix', route: { kind: 'not-found' }, ingress: null, policy: {} }]);

function model(servers: readonly Server[], settings: Model['settings'] = DEFAULT_SETTINGS, backends = [backend('web')]): Model {
  return { servers: [CATCH_ALL, ...servers], backends, tls: { certificates: [], hosts: [], defaultCertificate: null }, settings, routes: [] };
}

const RUNNING = model([server('old.test'), server('alias.test', undefined, { aliases: ['other.test'] }), server('bare.test', undefined, { wwwRedirectFrom: 'www.bare.test' })]);

const hostsOf = (pending: DynamicPending): string[] => pending.hosts.map((h) => h.host);

void describe('pendingHosts: which new hosts the catch-all serves before their reload', () => {
  const rows: readonly { name: string; servers: readonly Server[]; settings?: Model['settings']; backends?: Backend[]; want: readonly string[] }[] = [
    { name: 'a new plain host', servers: [server('new.test')], want: ['new.test'] },
    { name: 'hosts sorted', servers: [server('b.test'), server('a.test')], want: ['a.test', 'b.test'] },
    { name: 'a host already rendered (changed or not) waits for the reload', servers: [server('old.test', [location('old.test', '/'), location('old.test', '/x')])], want: [] },
    { name: 'an alias of a rendered server is never pending', servers: [server('other.test')], want: [] },
    { name: 'the www twin a rendered server redirects is never pending', servers: [server('www.bare.test')], want: [] },
    { name: 'a wildcard host waits', servers: [server('*.wild.test')], want: [] },
    { name: 'a regex location waits (regex host)', servers: [server('re.test', [location('re.test', '/a', 'regex')])], want: [] },
    { name: 'a non-default policy waits (rewrite-target)', servers: [server('rw.test', [location('rw.test', '/', 'prefix', { rewrite: { target: '/', useRegex: false } } as unknown as Policy)])], want: [] },
    { name: 'a snippet waits', servers: [server('sn.test', [location('sn.test', '/', 'prefix', { snippets: { configuration: ['add_header A b;'] } } as unknown as Policy)])], want: [] },
    { name: 'aliases on the new server wait', servers: [server('al.test', undefined, { aliases: ['x.al.test'] })], want: [] },
    { name: 'client certificates wait', servers: [server('ca.test', undefined, { clientAuth: { passCertificate: false } })], want: [] },
    { name: 'a www redirect on the new server waits', servers: [server('w.test', undefined, { wwwRedirectFrom: 'www.w.test' })], want: [] },
    { name: 'an EWMA backend waits (its log phase)', servers: [server('ewma.test')], backends: [backend('web', 'ewma')], want: [] },
    { name: 'a route flag other than ssl-redirect waits', servers: [server('e.test', [location('e.test', '/', 'prefix', {}, 'e')])], want: [] },
    { name: 'a location answering 404 (no Service) waits', servers: [server('nf.test', [{ path: '/', match: 'prefix', route: { kind: 'not-found' }, ingress: null, policy: {} }])], want: [] },
    {
      name: 'a feature set globally (its partial in every location) makes every host wait',
      servers: [server('new.test')], settings: { ...DEFAULT_SETTINGS, cors: { ...DEFAULT_SETTINGS.cors, enabled: true } } as Model['settings'], want: [],
    },
    { name: 'one plain host beside one that waits', servers: [server('new.test'), server('*.wild.test')], want: ['new.test'] },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      assert.deepEqual(hostsOf(pendingHosts(RUNNING, model(row.servers, row.settings, row.backends))), row.want);
    });
  }

  void it('the paths are the locations NGINX will have: a Prefix path is an exact and a prefix location', () => {
    const next = model([server('new.test', [location('new.test', '/api'), location('new.test', '/v1', 'exact'), location('new.test', '/')])]);
    assert.deepEqual(pendingHosts(RUNNING, next).hosts[0]?.paths, [
      { path: '/api', match: 'exact', key: 'r web new.test ns new.test web /api' },
      { path: '/api/', match: 'prefix', key: 'r web new.test ns new.test web /api' },
      { path: '/v1', match: 'exact', key: 'r web new.test ns new.test web /v1' },
      { path: '/', match: 'prefix', key: 'r web new.test ns new.test web /' },
    ]);
  });

  void it('nothing is pending before NGINX runs a configuration, nor once the running one has the host', () => {
    const next = model([server('old.test'), server('new.test')]);
    assert.deepEqual(pendingHosts(null, next), { hosts: [] });
    assert.deepEqual(pendingHosts(next, next), { hosts: [] });
  });
});

/** A data plane recording pushes and reloads in order; reloads wait for `release()` (`release(false)`: NGINX refuses it). */
function recordingDataplane(): DataplaneControl & { log: string[]; release(ok?: boolean): void } {
  let started = false;
  const log: string[] = [];
  let release: (ok: boolean) => void = () => undefined;
  return {
    log,
    release: (ok = true) => release(ok),
    started: () => started,
    async start() { started = true; },
    async reload(_conf, version) {
      log.push(`reload ${version} started`);
      const ok = await new Promise<boolean>((done) => { release = done; });
      if (!ok) {
        log.push(`reload ${version} refused`);
        throw new Error('nginx: [emerg] refused');
      }
      log.push(`reload ${version} confirmed`);
    },
    async pushBackends() { log.push('backends'); },
    async pushCertificates() { /* not recorded */ },
    async pushRoutes() { /* not recorded */ },
    async pushPending(pending) { log.push(`pending [${hostsOf(pending).join(',')}]`); },
  };
}

void describe('sync: pending hosts pushed with the reload that renders them, dropped once it is confirmed', () => {
  void it('served before the reload, dropped after its confirmation; hosts that wait are never pushed', async () => {
    const dp = recordingDataplane();
    let state = model([server('old.test')]);
    const sync = createSync({
      steps: {
        snapshot: () => ({ ingresses: [], ingressClasses: [], services: [], endpointSlices: [], secrets: [], configMaps: [] }),
        build: () => ({ model: state, failures: [] }),
        render: (m) => ({ conf: 'conf', version: m.servers.map((s) => s.hostname).join('+') }),
      },
      dataplane: dp, logger: pino({ level: 'silent' }), minIntervalMs: 0, reloadSettleMs: 0,
    });
    sync.kick();
    await sync.idle();
    assert.deepEqual(dp.log, ['backends'], 'the first configuration has every host: nothing pending');
    dp.log.length = 0;
    state = model([server('old.test'), server('new.test'), server('*.wild.test')]);
    sync.kick();
    // The reload is held: the pending set must already be in Lua.
    for (let i = 0; i < 100 && !dp.log.some((line) => line.endsWith('started')); i++) await new Promise((done) => setTimeout(done, 5));
    assert.deepEqual(dp.log, ['backends', 'pending [new.test]', 'reload _+old.test+new.test+*.wild.test started'], 'after the backends, before the reload');
    dp.release();
    await sync.idle();
    assert.deepEqual(dp.log.slice(3), ['reload _+old.test+new.test+*.wild.test confirmed', 'pending []']);
    await sync.stop();
  });

  void it('a refused reload withdraws its pending hosts: the last good configuration stays whole', async () => {
    const dp = recordingDataplane();
    let state = model([server('old.test')]);
    const sync = createSync({
      steps: {
        snapshot: () => ({ ingresses: [], ingressClasses: [], services: [], endpointSlices: [], secrets: [], configMaps: [] }),
        build: () => ({ model: state, failures: [] }),
        render: (m) => ({ conf: 'conf', version: m.servers.map((s) => s.hostname).join('+') }),
      },
      dataplane: dp, logger: pino({ level: 'silent' }), minIntervalMs: 0, reloadSettleMs: 0, badConfigHoldMs: 60_000,
    });
    sync.kick();
    await sync.idle();
    dp.log.length = 0;
    state = model([server('old.test'), server('new.test')]);
    sync.kick();
    for (let i = 0; i < 100 && !dp.log.some((line) => line.endsWith('started')); i++) await new Promise((done) => setTimeout(done, 5));
    dp.release(false);
    for (let i = 0; i < 100 && dp.log.at(-1) !== 'pending []'; i++) await new Promise((done) => setTimeout(done, 5));
    assert.deepEqual(dp.log.filter((line) => line.startsWith('pending') || line.includes('refused')),
      ['pending [new.test]', 'reload _+old.test+new.test refused', 'pending []']);
    await sync.stop();
  });
});
