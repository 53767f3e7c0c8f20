// Properties of the Lua configuration endpoints inside one real NGINX, over
// generated bodies (test/body-arbitraries.ts) and over what the controller
// sends for generated clusters (model/testdata/cluster-arbitrary.ts):
// - any body gets its success status (201, PATCH 200) or 400, never another
//   status; a 400 leaves everything stored as it was (both versions,
//   backends, certificates, routes) and quotes no raw control byte; a success
//   stores what the body says and every worker applies it; the error log stays
//   free of [error] throughout;
// - what the model accepts, Lua accepts: the backends, certificates and
//   route policies of every generated model are taken (and the PATCH from the
//   previous model's backends), or one tenant's value would stop every push.
// The seed is printed; replay with FC_SEED=<seed>. About 15 s.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { backendPatch, changedBackends, dynamicBackends, dynamicCertificates } from '../controller/src/diff/decide.ts';
import { buildModel } from '../controller/src/model/build.ts';
import { clusterArbitrary } from '../controller/src/model/testdata/cluster-arbitrary.ts';
import { makeTlsPool, type TlsPool } from '../controller/src/model/testdata/tls-pool.ts';
import type { Model } from '../controller/src/model/types.ts';
import { bodyFor, type Body, type Target } from './test/body-arbitraries.ts';
import { assertCleanErrorLog, getStatus, startLuaNginx, waitAllWorkersApplied, type LuaNginx } from './test/lua-fixture.ts';

const seed = process.env.FC_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FC_SEED);
console.log(`fast-check seed ${seed} (replay: FC_SEED=${seed} node --test lua/body-properties.test.ts)`);
const BODY_RUNS = 150;
const MODEL_RUNS = 150;
/** Each step of shrinking a failure is requests to NGINX: bounded, it reports the smallest counterexample found by then. */
const SHRINK_BOUND = { interruptAfterTimeLimit: 120_000, markInterruptAsFailure: true } as const;

const REQUEST: Record<Target, { method: string; path: string; ok: number }> = {
  'POST backends': { method: 'POST', path: '/configuration/backends', ok: 201 },
  'PATCH backends': { method: 'PATCH', path: '/configuration/backends', ok: 200 },
  'POST certificates': { method: 'POST', path: '/configuration/certificates', ok: 201 },
  'POST routes': { method: 'POST', path: '/configuration/routes', ok: 201 },
};

interface Stored {
  readonly status: unknown;
  readonly backends: unknown;
  readonly certificates: unknown;
  readonly routes: unknown;
}

void describe('configuration endpoints over generated bodies', () => {
  let fixture: LuaNginx;
  let pool: TlsPool;
  before(async () => {
    pool = makeTlsPool();
    fixture = await startLuaNginx();
  });
  after(async () => {
    await fixture?.nginx.stop();
  });

  const send = async (target: Target, bytes: Buffer | string): Promise<{ status: number; text: string }> => {
    const { method, path } = REQUEST[target];
    const res = await fetch(`${fixture.statusUrl}${path}`, { method, body: bytes });
    return { status: res.status, text: await res.text() };
  };
  const read = async (path: string): Promise<unknown> => (await fetch(`${fixture.statusUrl}${path}`)).json();
  const stored = async (): Promise<Stored> => ({
    status: await getStatus(fixture.statusUrl),
    backends: sortBy(await read('/configuration/backends') as { name: string }[], 'name'),
    certificates: await read('/configuration/certificates'),
    routes: await read('/configuration/routes'),
  });

  for (const target of Object.keys(REQUEST) as Target[]) {
    void it(`${BODY_RUNS} bodies for ${target}: success or 400, a 400 stores nothing, a success stores the body`, async (t) => {
      let refused = 0;
      await fc.assert(fc.asyncProperty(bodyFor(target, pool), async (body: Body) => {
        const before = await stored();
        const answer = await send(target, body.bytes);
        if (answer.status === 400) {
          refused++;
          const raw = [...answer.text.replace(/\n$/u, '')].filter((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
          assert.deepEqual(raw, [], `the reason quotes a raw control byte: ${JSON.stringify(answer.text)}`);
          assert.deepEqual(await stored(), before, `400 (${answer.text.trim()}) changed what is stored`);
        } else {
          assert.equal(answer.status, REQUEST[target].ok, `${target} answered ${answer.status}: ${answer.text}`);
          await waitAllWorkersApplied(fixture);
          assertStoredAsSent(target, JSON.parse(body.bytes.toString('utf8')), before, await stored());
        }
        assertCleanErrorLog(fixture);
      }), { numRuns: BODY_RUNS, seed, ...SHRINK_BOUND });
      t.diagnostic(`${BODY_RUNS - refused} taken, ${refused} refused`);
      assert.ok(refused > BODY_RUNS / 10 && refused < BODY_RUNS * 0.9, `too one-sided: ${refused} of ${BODY_RUNS} refused`);
    });
  }

  void it(`${MODEL_RUNS} generated clusters: Lua takes the backends, certificates, routes and backend patches of every model`, async (t) => {
    let previous: Model | null = null;
    let counts = { backends: 0, certificates: 0, routes: 0, patches: 0 };
    const expect = async (target: Target, document: unknown): Promise<void> => {
      const answer = await send(target, JSON.stringify(document));
      assert.equal(answer.status, REQUEST[target].ok, `${target} of an accepted model answered ${answer.status}: ${answer.text}`);
    };
    await fc.assert(fc.asyncProperty(clusterArbitrary(pool), async (cluster) => {
      const { model } = buildModel(cluster.snapshot, cluster.options);
      if (previous !== null) {
        await expect('PATCH backends', backendPatch(model, changedBackends(previous, model)));
        counts = { ...counts, patches: counts.patches + 1 };
      }
      await expect('POST backends', dynamicBackends(model));
      await expect('POST certificates', dynamicCertificates(model));
      await expect('POST routes', { routes: model.routes });
      await waitAllWorkersApplied(fixture);
      previous = model;
      counts = { backends: counts.backends + model.backends.length, certificates: counts.certificates + model.tls.certificates.length, routes: counts.routes + model.routes.length, patches: counts.patches };
      assertCleanErrorLog(fixture);
    }), { numRuns: MODEL_RUNS, seed, ...SHRINK_BOUND });
    t.diagnostic(`pushed ${counts.backends} backends, ${counts.certificates} certificates, ${counts.routes} route policies, ${counts.patches} patches`);
    assert.ok(counts.backends > MODEL_RUNS && counts.certificates > MODEL_RUNS / 10 && counts.routes > 0, `the models carried too little: ${JSON.stringify(counts)}`);
  });
});

function sortBy<T extends Record<K, string>, K extends string>(items: readonly T[], key: K): T[] {
  return [...items].sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0));
}

interface BackendDoc { name: string; loadBalance: string; endpoints: { address: string; port: number }[] }
interface RouteDoc { key: string; canary: Record<string, unknown> }

/**
 * An array of the body as Lua reads it: cjson decodes {} and [] alike, so an empty object where an
 * array is due is taken as an empty array (it holds nothing either way).
 */
function list<T>(value: unknown): T[] {
  return Array.isArray(value) ? value as T[] : [];
}

/** What a backend looks like stored: the fields the contract names, nothing else. */
const storedBackend = (b: BackendDoc): BackendDoc => ({
  name: b.name, loadBalance: b.loadBalance, endpoints: list<BackendDoc['endpoints'][number]>(b.endpoints).map((e) => ({ address: e.address, port: e.port })),
});

/** A successful push stored exactly what the body says. */
function assertStoredAsSent(target: Target, document: unknown, before: Stored, after: Stored): void {
  if (target === 'POST backends') {
    assert.deepEqual(after.backends, sortBy((document as BackendDoc[]).map(storedBackend), 'name'));
  } else if (target === 'PATCH backends') {
    const patch = document as { set: unknown; remove: unknown };
    const set = list<BackendDoc>(patch.set);
    const remove = list<string>(patch.remove);
    const kept = (before.backends as BackendDoc[]).filter((b) => !remove.includes(b.name) && !set.some((s) => s.name === b.name));
    assert.deepEqual(after.backends, sortBy([...kept, ...set.map(storedBackend)], 'name'));
  } else if (target === 'POST certificates') {
    const doc = document as { certificates: unknown; hosts: Record<string, string>; defaultCertificate?: string | null };
    const summary = after.certificates as { certificates: { id: string }[]; hosts: { host: string; certificate: string }[]; defaultCertificate: string | null };
    assert.deepEqual(summary.certificates.map((c) => c.id).sort(), list<{ id: string }>(doc.certificates).map((c) => c.id).sort());
    assert.deepEqual(summary.hosts, sortBy(Object.entries(doc.hosts).map(([host, certificate]) => ({ host, certificate })), 'host'));
    assert.equal(summary.defaultCertificate, doc.defaultCertificate ?? null);
  } else {
    const doc = document as { routes: unknown };
    const filled = list<RouteDoc>(doc.routes).map(({ key, canary }) => ({ key, canary: {
      backend: canary.backend, weight: canary.weight, weightTotal: canary.weightTotal ?? 100,
      header: canary.header ?? null, headerValue: canary.headerValue ?? null, headerPattern: canary.headerPattern ?? null, cookie: canary.cookie ?? null,
    } }));
    assert.deepEqual(after.routes, { routes: filled });
  }
}
