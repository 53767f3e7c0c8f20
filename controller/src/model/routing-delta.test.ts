// Property: a long-lived builder that updates its routing incrementally
// (routing-delta.ts) gives, after every Ingress change, the model and failures
// a from-scratch buildModel gives. The Ingresses share a few hosts, paths and
// Services, so changes collide (oldest wins, a younger Ingress takes a path
// over when the older one leaves, backends shared across hosts); some carry
// the features a delta must refuse (canary, server-alias, www redirect,
// custom errors, spec.defaultBackend, a rule without host, ssl-passthrough,
// client certificates), and some changes are to Services: in some rows
// Services are created, changed and deleted in both namespaces, alone or with
// an Ingress change, and paths route to a Service that exists only once a
// change creates it (a change to no Service the routing looked up keeps it,
// routing-source.ts). The test also requires that a share of the builds did
// take the incremental path (and of the Service changes, a path other than
// the full build), so that it tests those and not the fallback. The seed is
// printed; replay with FC_SEED=<seed>.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ann, options } from './testdata/fixtures.ts';
import { replay, SERVICES, SPARE, type Change, type IngressSpec, type PathSpec } from './testdata/routing-changes.ts';
import type { BuildOptions } from './types.ts';

const seed = process.env.FC_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FC_SEED);
console.log(`fast-check seed ${seed} (replay: FC_SEED=${seed} node --test controller/src/model/routing-delta.test.ts)`);

const SLOTS = 12;
const HOSTS = ['a.example', 'b.example', 'c.example', 'd.example', 'e.example', 'f.example', 'www.a.example', 'alias.example'] as const;
/** Annotations that stay local to an Ingress's hosts and backends, and the ones that reach across. */
const LOCAL_ANNOTATIONS: readonly Record<string, string>[] = [
  {}, {}, {}, { [ann('load-balance')]: 'ewma' }, { [ann('affinity')]: 'cookie' }, { [ann('upstream-hash-by')]: '$request_uri' },
  { [ann('use-regex')]: 'true' }, { [ann('rewrite-target')]: '/' }, { [ann('proxy-read-timeout')]: '120' },
  // Refused: asking for a protection (its paths placed, each answering 503: denied-paths.ts), and not.
  { [ann('auth-url')]: 'https://invalid..auth.url' }, { [ann('allowlist-source-range')]: 'not-an-address' }, { [ann('load-balance')]: 'nope' },
];
const CANARY: Record<string, string> = { [ann('canary')]: 'true', [ann('canary-weight')]: '30' };
const OTHER_ANNOTATIONS: readonly Record<string, string>[] = [
  { [ann('server-alias')]: 'alias.example' },
  { [ann('from-to-www-redirect')]: 'true' },
  { [ann('custom-http-errors')]: '404', [ann('default-backend')]: 'db' },
  { [ann('ssl-passthrough')]: 'true' },
  { [ann('auth-tls-secret')]: 'default/ca' },
];

function pathSpec(mix: Mix): fc.Arbitrary<PathSpec> {
  return fc.record({
    value: fc.constantFrom('/', '/x', '/y', '/x/z'), exact: fc.boolean(), service: fc.constantFrom(...mix.services), port: fc.constantFrom(80 as const, 81 as const, 'http' as const),
  });
}

/** How often the generated Ingresses take a host without name, a canary, another cross-host feature. */
interface Mix {
  readonly hosts: readonly string[];
  /** The Services paths route to. */
  readonly services: readonly string[];
  readonly catchAll: number;
  readonly canary: number;
  readonly other: number;
  /** The Services changes create, change and delete in both namespaces (else: only change the port of `default`'s). */
  readonly churn?: readonly string[];
}

/** Many hosts, few features that stop a delta: most builds are incremental. */
const SPREAD: Mix = { hosts: HOSTS, services: SERVICES, catchAll: 1, canary: 1, other: 1 };
/** As SPREAD, with paths to the --default-backend-service Service too (its Backend is the global default's: a change reaching it builds in full, so fewer builds are incremental, 13–21%). */
const SPREAD_TO_FALLBACK: Mix = { ...SPREAD, services: [...SERVICES, 'fallback'] };
/** Two hosts, the catch-all and canaries often: every host has its `/`, canaries share main backends. */
const DENSE: Mix = { hosts: ['a.example', 'b.example'], services: SERVICES, catchAll: 16, canary: 8, other: 0 };
/** As SPREAD, with paths to a Service that does not exist at first, and Services created, changed and deleted. */
const SERVICE_CHURN: Mix = { ...SPREAD, services: [...SERVICES, SPARE], churn: [...SERVICES, SPARE] };

function ingressSpec(mix: Mix): fc.Arbitrary<IngressSpec> {
  const annotations = [{ weight: 30, arbitrary: fc.constantFrom(...LOCAL_ANNOTATIONS) }, { weight: mix.canary, arbitrary: fc.constant(CANARY) }];
  if (mix.other > 0) annotations.push({ weight: mix.other, arbitrary: fc.constantFrom(...OTHER_ANNOTATIONS) });
  return fc.record({
    created: fc.integer({ min: 0, max: 5 }),
    namespace: fc.constantFrom('default', 'default', 'other'),
    rules: fc.array(fc.record({ host: fc.oneof({ weight: 48, arbitrary: fc.constantFrom(...mix.hosts) }, { weight: mix.catchAll, arbitrary: fc.constant('') }), paths: fc.array(pathSpec(mix), { maxLength: 2 }) }), { minLength: 1, maxLength: 2 }),
    annotations: fc.oneof(...annotations),
    defaultBackend: fc.oneof({ weight: 15, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    tls: fc.boolean(),
  });
}

function changeOf(mix: Mix): fc.Arbitrary<Change> {
  const ingressChange = fc.record({ kind: fc.constant('ingress' as const), slot: fc.integer({ min: 0, max: SLOTS - 1 }), spec: fc.option(ingressSpec(mix), { freq: 6 }) });
  if (mix.churn !== undefined) {
    const serviceChange = fc.record({
      kind: fc.constant('service' as const), name: fc.constantFrom(...mix.churn), namespace: fc.constantFrom('default', 'other'), port: fc.constantFrom(80 as const, 81 as const, null),
    });
    return fc.oneof(
      { weight: 8, arbitrary: ingressChange },
      { weight: 4, arbitrary: serviceChange },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('batch' as const), steps: fc.tuple(serviceChange, ingressChange) }) },
    );
  }
  return fc.oneof(
    { weight: 12, arbitrary: fc.record({ kind: fc.constant('ingress' as const), slot: fc.integer({ min: 0, max: SLOTS - 1 }), spec: fc.option(ingressSpec(mix), { freq: 6 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('service' as const), name: fc.constantFrom(...SERVICES), port: fc.constantFrom(80 as const, 81 as const) }) },
  );
}

interface Counts {
  readonly incremental: number;
  readonly builds: number;
  /** The builds after a change that changed a Service, and those of them that were not full. */
  readonly serviceChanges: number;
  readonly serviceKept: number;
}

function checkSequences(buildOptions: BuildOptions, mix: Mix, runs: number): Counts {
  let incremental = 0;
  let builds = 0;
  let serviceChanges = 0;
  let serviceKept = 0;
  fc.assert(fc.property(fc.array(ingressSpec(mix), { minLength: SLOTS, maxLength: SLOTS }), fc.array(changeOf(mix), { minLength: 1, maxLength: 25 }), (initial, sequence) => {
    const sources = replay(buildOptions, initial.map((spec, slot) => (slot % 3 === 2 ? null : spec)), sequence);
    builds += sources.length;
    incremental += sources.filter((source) => source === 'incremental').length;
    for (const [i, step] of sequence.entries()) {
      if (step.kind === 'ingress') continue;
      serviceChanges++;
      if (sources[i] !== 'full') serviceKept++;
    }
  }), { seed, numRuns: runs });
  return { incremental, builds, serviceChanges, serviceKept };
}

void describe('incremental routing over random Ingress changes', () => {
  const rows: readonly { readonly name: string; readonly options: BuildOptions; readonly mix: Mix; readonly share: number; readonly serviceShare?: number }[] = [
    { name: 'many hosts', options: options(), mix: SPREAD, share: 0.15 },
    { name: 'many hosts, --default-backend-service and --enable-ssl-passthrough', options: options({ defaultBackendService: 'default/fallback', enableSslPassthrough: true }), mix: SPREAD, share: 0.15 },
    { name: 'many hosts, paths to the --default-backend-service Service', options: options({ defaultBackendService: 'default/fallback' }), mix: SPREAD_TO_FALLBACK, share: 0.08 },
    { name: 'many hosts, Services created, changed and deleted', options: options(), mix: SERVICE_CHURN, share: 0.1, serviceShare: 0.1 },
    {
      name: 'many hosts, Services created, changed and deleted, the --default-backend-service one too', options: options({ defaultBackendService: 'default/fallback' }),
      mix: { ...SERVICE_CHURN, churn: [...SERVICES, SPARE, 'fallback'] }, share: 0.1, serviceShare: 0.1,
    },
    { name: 'two hosts, catch-all rules and canaries', options: options(), mix: DENSE, share: 0.01 },
    { name: 'two hosts, catch-all rules and canaries, --default-backend-service', options: options({ defaultBackendService: 'default/fallback' }), mix: DENSE, share: 0.01 },
  ];
  for (const row of rows) {
    void it(`${row.name}: every build equals a fresh buildModel (model and failures, in order)`, () => {
      const { incremental, builds, serviceChanges, serviceKept } = checkSequences(row.options, row.mix, 120);
      // The delta must carry a real share of the builds, or this tests the full build only.
      console.log(`${row.name}: ${incremental} of ${builds} builds incremental, ${serviceKept} of ${serviceChanges} after a Service change not full`);
      assert.ok(incremental > builds * row.share, `only ${incremental} of ${builds} builds were incremental`);
      if (row.serviceShare !== undefined) assert.ok(serviceKept > serviceChanges * row.serviceShare, `only ${serviceKept} of ${serviceChanges} builds after a Service change were not full`);
    });
  }
});
