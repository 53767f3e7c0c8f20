// The sync leaves out the Ingresses NGINX refuses and applies the rest. A
// toy world: each Ingress is one server of its own; render prints one line
// per Ingress; NGINX refuses a configuration holding a bad Ingress (named by
// annotation) and names its line, or no line when the row says so.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Ingress } from '@kubernetes/client-node';
import { pino } from 'pino';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import type { Failure, IngressRef, Model, Snapshot } from '../model/types.ts';
import { REJECTED_BY_NGINX, rejectionMessage } from './ingress-isolation.ts';
import { ConfigRefused, createSync, type DataplaneControl } from './sync.ts';

const BAD = 'test/nginx-refuses';

function ingress(name: string, resourceVersion: string, bad = false, created = '2024-01-01T00:00:00Z'): V1Ingress {
  return Object.freeze({
    metadata: Object.freeze({
      namespace: 'default', name, uid: `uid-${name}`, resourceVersion, creationTimestamp: new Date(created),
      ...(bad ? { annotations: { [BAD]: 'true' } } : {}),
    }),
  });
}

const refOf = (item: V1Ingress): IngressRef => ({ namespace: item.metadata?.namespace ?? '', name: item.metadata?.name ?? '' });

function modelOf(ingresses: readonly V1Ingress[]): Model {
  return {
    servers: ingresses.map((item) => ({
      hostname: `${item.metadata?.name}.test`,
      locations: [{
        path: item.metadata?.annotations?.[BAD] === 'true' ? '/bad' : '/', match: 'prefix',
        route: { kind: 'not-found' }, ingress: refOf(item), policy: {},
      }],
    })),
    backends: [], tls: { certificates: [], hosts: [], defaultCertificate: null }, settings: DEFAULT_SETTINGS, routes: [],
  };
}

/** nginx.conf of the toy world: a header line, then `server <host> <path>` per Ingress. */
function render(model: Model): { conf: string; version: string } {
  const lines = ['http {', ...model.servers.map((s) => `server ${s.hostname} ${s.locations[0]?.path}`)];
  return { conf: lines.join('\n'), version: model.servers.map((s) => s.hostname).join(',') || 'empty' };
}

/** What the toy NGINX says: refused when a `/bad` server is in it, on its line unless `ownedLines` is off. */
function nginxTest(conf: string, world: { ownedLines: boolean; broken: boolean; brokenTests: number }): void {
  if (world.brokenTests > 0) world.brokenTests -= 1;
  else if (!world.broken) return nginxTestWhole(conf, world);
  throw new ConfigRefused('[emerg] dlopen() failed', 1);
}

function nginxTestWhole(conf: string, world: { ownedLines: boolean }): void {
  const at = conf.split('\n').findIndex((line) => line.endsWith(' /bad'));
  if (at >= 0) throw new ConfigRefused('[emerg] "client_max_body_size" directive invalid value', world.ownedLines ? at + 1 : 1);
}

function harness(options: { ownedLines?: boolean; holdMs?: number } = {}) {
  /** broken: every `nginx -t` fails; brokenTests: the next so many do. */
  const world = { ownedLines: options.ownedLines ?? true, broken: false, brokenTests: 0 };
  let ingresses: V1Ingress[] = [];
  const tested: string[] = [];
  const live: string[] = [];
  const failures: Failure[][] = [];
  const reloadFailed: unknown[] = [];
  let started = false;
  const check = (conf: string, version: string): void => {
    tested.push(version);
    nginxTest(conf, world);
  };
  const dataplane: DataplaneControl = {
    started: () => started,
    async start(conf, version) { check(conf, version); started = true; live.push(version); },
    async reload(conf, version) { check(conf, version); live.push(version); },
    async validate(conf, version) { check(conf, version); },
    async pushBackends() { /* no endpoints in this world */ },
    async pushCertificates() { /* none */ },
    async pushRoutes() { /* none */ },
  };
  const sync = createSync({
    steps: {
      snapshot: (): Snapshot => ({ ingresses, ingressClasses: [], services: [], endpointSlices: [], secrets: [], configMaps: [] }),
      build: (snapshot, exclude) => ({ model: modelOf(snapshot.ingresses.filter((item) => !exclude.has(item))), failures: [] }),
      render,
      owners: (model, conf, line) => {
        const host = conf.split('\n')[line - 1]?.split(' ')[1];
        const owner = model.servers.find((s) => s.hostname === host)?.locations[0]?.ingress;
        return owner ? [owner] : [];
      },
    },
    dataplane,
    logger: pino({ level: 'silent' }),
    minIntervalMs: 0,
    ...(options.holdMs === undefined ? {} : { badConfigHoldMs: options.holdMs }),
    hooks: { onFailures: (list) => failures.push([...list]), onReloadFailed: (err) => reloadFailed.push(err) },
  });
  const apply = async (next: V1Ingress[]): Promise<void> => {
    ingresses = next;
    sync.kick();
    await sync.idle();
  };
  const rejected = (): string[] => (failures.at(-1) ?? []).filter((f) => f.reason === REJECTED_BY_NGINX).map((f) => f.ingress?.name ?? '?');
  return { world, apply, sync, tested, live, failures, rejected, reloadFailed };
}

void describe('sync: an Ingress NGINX refuses is left out, the rest applied', () => {
  for (const ownedLines of [true, false]) {
    const how = ownedLines ? 'NGINX names its line' : 'no line names it: bisected';
    void it(`a new Ingress NGINX refuses (${how}): the others go live, it gets a RejectedByNginx failure`, async () => {
      const h = harness({ ownedLines });
      await h.apply([ingress('a', '1'), ingress('b', '1')]);
      await h.apply([ingress('a', '1'), ingress('b', '1'), ingress('c', '1', true), ingress('d', '1')]);
      assert.equal(h.live.at(-1), 'a.test,b.test,d.test');
      assert.deepEqual(h.sync.running()?.servers.map((s) => s.hostname), ['a.test', 'b.test', 'd.test']);
      assert.deepEqual(h.rejected(), ['c']);
      const failure = h.failures.at(-1)?.find((f) => f.reason === REJECTED_BY_NGINX);
      assert.match(failure?.message ?? '', /NGINX refused .*"client_max_body_size"/);
      assert.deepEqual(h.reloadFailed, [], 'no ReloadFailed: nothing failed for anyone else');
    });
  }

  void it('it stays out while unchanged (a relist makes a new object of it), then is tried again once it changes', async () => {
    const h = harness();
    const good = [ingress('a', '1')];
    await h.apply([...good, ingress('c', '1', true)]);
    assert.deepEqual(h.rejected(), ['c']);
    const triedBefore = h.tested.filter((v) => v.includes('c.test')).length;
    await h.apply([...good, ingress('c', '1', true), ingress('e', '1')]); // another change
    await h.apply([ingress('a', '1'), ingress('c', '1', true), ingress('e', '1')]); // relisted: new objects, same resourceVersions
    assert.equal(h.tested.filter((v) => v.includes('c.test')).length, triedBefore, 'never tried again unchanged');
    assert.deepEqual(h.rejected(), ['c']);
    assert.equal(h.live.at(-1), 'a.test,e.test');
    await h.apply([ingress('a', '1'), ingress('c', '2'), ingress('e', '1')]); // fixed by its owner
    assert.equal(h.live.at(-1), 'a.test,c.test,e.test');
    assert.deepEqual(h.rejected(), []);
  });

  void it('the first configuration: NGINX starts without the Ingress it refuses', async () => {
    const h = harness();
    await h.apply([ingress('a', '1'), ingress('c', '1', true), ingress('z', '1')]);
    assert.deepEqual(h.live, ['a.test,z.test']);
    assert.deepEqual(h.rejected(), ['c']);
  });

  void it('a refusal no changed Ingress explains (a broken runtime): the reload fails as before, nobody is left out', async () => {
    const h = harness({ ownedLines: false });
    await h.apply([ingress('a', '1')]);
    h.world.broken = true;
    await h.apply([ingress('a', '1'), ingress('b', '1')]);
    assert.deepEqual(h.live, ['a.test']);
    assert.equal(h.reloadFailed.length, 1);
    assert.ok(h.reloadFailed[0] instanceof ConfigRefused);
    assert.deepEqual(h.rejected(), []);
  });
});

void describe('sync: a refusal that passes while the search runs blames nobody', () => {
  void it('the runtime is broken for the reload only: nothing is left out, and the configuration goes live at once', async () => {
    const h = harness({ ownedLines: false });
    await h.apply([ingress('a', '1')]);
    h.world.brokenTests = 1;
    await h.apply([ingress('a', '1'), ingress('b', '1')]);
    assert.deepEqual(h.rejected(), []);
    assert.deepEqual(h.reloadFailed, []);
    assert.equal(h.live.at(-1), 'a.test,b.test');
  });

  void it('the runtime breaks while the search runs: nothing is left out, the reload fails and is tried again later', async () => {
    const h = harness({ ownedLines: false, holdMs: 50 });
    await h.apply([ingress('a', '1')]);
    h.world.brokenTests = 3; // the reload, and the search's trials: nothing explains the refusal
    await h.apply([ingress('a', '1'), ingress('b', '1')]);
    assert.deepEqual(h.rejected(), []);
    assert.equal(h.reloadFailed.length, 1, 'the refused reload is reported as such');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await h.sync.idle();
    assert.equal(h.live.at(-1), 'a.test,b.test');
  });
});

void describe('rejectionMessage', () => {
  const rows: [name: string, detail: string, check: (message: string) => void][] = [
    ['keeps NGINX\'s words', '[emerg] "client_max_body_size" directive invalid value', (m) => assert.match(m, /directive invalid value$/)],
    ['one line', 'a\nb\u0000c', (m) => assert.ok(!m.includes('\n') && !m.includes('\u0000'), m)],
    ['at most 200 characters', 'x'.repeat(500), (m) => assert.ok(m.length <= 200, String(m.length))],
  ];
  for (const [name, detail, check] of rows) void it(name, () => check(rejectionMessage(detail)));
});
