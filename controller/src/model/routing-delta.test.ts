// Property: a long-lived builder that updates its routing incrementally
// (routing-delta.ts) gives, after every Ingress change, the model and failures
// a from-scratch buildModel gives. The Ingresses share a few hosts, paths and
// Services, so changes collide (oldest wins, a younger Ingress takes a path
// over when the older one leaves, backends shared across hosts); some carry
// the features a delta must refuse (canary, server-alias, www redirect,
// custom errors, spec.defaultBackend, a rule without host, ssl-passthrough,
// client certificates), and some changes are to Services (a full build).
// The test also requires that most builds did take the incremental path, so
// that it tests the delta and not the fallback. The seed is printed; replay
// with FC_SEED=<seed>.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { V1Ingress, V1Service } from '@kubernetes/client-node';
import { buildModel, createModelBuilder } from './build.ts';
import { ann, deepFreeze, ingress, options, path, rule, service, slice, snapshot, svc } from './testdata/fixtures.ts';
import type { BuildOptions, Snapshot } from './types.ts';

const seed = process.env.FC_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FC_SEED);
console.log(`fast-check seed ${seed} (replay: FC_SEED=${seed} node --test controller/src/model/routing-delta.test.ts)`);

const SLOTS = 12;
const HOSTS = ['a.example', 'b.example', 'c.example', 'd.example', 'e.example', 'f.example', 'www.a.example', 'alias.example'] as const;
const SERVICES = ['web', 'api', 'db', 'cache'] as const;
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

interface PathSpec {
  readonly value: string;
  readonly exact: boolean;
  readonly service: (typeof SERVICES)[number];
  readonly port: 80 | 81 | 'http';
}

interface IngressSpec {
  readonly created: number;
  readonly namespace: string;
  readonly rules: readonly { readonly host: string; readonly paths: readonly PathSpec[] }[];
  readonly annotations: Record<string, string>;
  readonly defaultBackend: boolean;
  readonly tls: boolean;
}

type Change =
  | { readonly kind: 'ingress'; readonly slot: number; readonly spec: IngressSpec | null }
  | { readonly kind: 'service'; readonly name: (typeof SERVICES)[number]; readonly port: 80 | 81 };

const pathSpec: fc.Arbitrary<PathSpec> = fc.record({
  value: fc.constantFrom('/', '/x', '/y', '/x/z'), exact: fc.boolean(), service: fc.constantFrom(...SERVICES), port: fc.constantFrom(80 as const, 81 as const, 'http' as const),
});

/** How often the generated Ingresses take a host without name, a canary, another cross-host feature. */
interface Mix {
  readonly hosts: readonly string[];
  readonly catchAll: number;
  readonly canary: number;
  readonly other: number;
}

/** Many hosts, few features that stop a delta: most builds are incremental. */
const SPREAD: Mix = { hosts: HOSTS, catchAll: 1, canary: 1, other: 1 };
/** Two hosts, the catch-all and canaries often: every host has its `/`, canaries share main backends. */
const DENSE: Mix = { hosts: ['a.example', 'b.example'], catchAll: 16, canary: 8, other: 0 };

function ingressSpec(mix: Mix): fc.Arbitrary<IngressSpec> {
  const annotations = [{ weight: 30, arbitrary: fc.constantFrom(...LOCAL_ANNOTATIONS) }, { weight: mix.canary, arbitrary: fc.constant(CANARY) }];
  if (mix.other > 0) annotations.push({ weight: mix.other, arbitrary: fc.constantFrom(...OTHER_ANNOTATIONS) });
  return fc.record({
    created: fc.integer({ min: 0, max: 5 }),
    namespace: fc.constantFrom('default', 'default', 'other'),
    rules: fc.array(fc.record({ host: fc.oneof({ weight: 48, arbitrary: fc.constantFrom(...mix.hosts) }, { weight: mix.catchAll, arbitrary: fc.constant('') }), paths: fc.array(pathSpec, { maxLength: 2 }) }), { minLength: 1, maxLength: 2 }),
    annotations: fc.oneof(...annotations),
    defaultBackend: fc.oneof({ weight: 15, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    tls: fc.boolean(),
  });
}

function changeOf(mix: Mix): fc.Arbitrary<Change> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.record({ kind: fc.constant('ingress' as const), slot: fc.integer({ min: 0, max: SLOTS - 1 }), spec: fc.option(ingressSpec(mix), { freq: 6 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('service' as const), name: fc.constantFrom(...SERVICES), port: fc.constantFrom(80 as const, 81 as const) }) },
  );
}

function ingressOf(slot: number, spec: IngressSpec): V1Ingress {
  const made = ingress(`ing-${slot}`, {
    namespace: spec.namespace,
    created: new Date(Date.UTC(2024, 0, 1, 0, 0, spec.created)).toISOString(),
    annotations: spec.annotations,
    rules: spec.rules.map((r) => rule(r.host, ...r.paths.map((p) => path(p.value, svc(p.service, p.port), p.exact ? 'Exact' : 'Prefix')))),
    ...(spec.defaultBackend ? { defaultBackend: svc('db', 80) } : {}),
  });
  const hosts = spec.rules.map((r) => r.host).filter((host) => host !== '');
  return deepFreeze(spec.tls && hosts.length > 0 ? { ...made, spec: { ...made.spec, tls: [{ hosts, secretName: 'tls' }] } } : made);
}

function serviceOf(name: string, port: number, namespace: string): V1Service {
  return deepFreeze(service(name, [{ name: 'http', port }], namespace));
}

function startSnapshot(): Snapshot {
  const namespaces = ['default', 'other'];
  return deepFreeze(snapshot({
    // `fallback`: the --default-backend-service of the second property (no path routes to it).
    services: [...namespaces.flatMap((ns) => SERVICES.map((name) => serviceOf(name, 80, ns))), serviceOf('fallback', 80, 'default')],
    endpointSlices: namespaces.flatMap((ns, n) => SERVICES.map((name, i) => slice(`${name}-1`, name, [{ name: 'http', port: 8080 }], [{ addresses: [`10.0.${n}.${i + 1}`] }], ns))),
  }));
}

/** Applies one change as the informer store does: new frozen objects and arrays, the rest shared. */
function apply(snap: Snapshot, slots: (V1Ingress | null)[], step: Change): Snapshot {
  if (step.kind === 'service') {
    const services = snap.services.map((s) => (s.metadata?.name === step.name && s.metadata.namespace === 'default' ? serviceOf(step.name, step.port, 'default') : s));
    return Object.freeze({ ...snap, services: Object.freeze(services) });
  }
  slots[step.slot] = step.spec === null ? null : ingressOf(step.slot, step.spec);
  // The store's order is its own: put the changed Ingress last, as a watch event would.
  const others = snap.ingresses.filter((i) => i.metadata?.name !== `ing-${step.slot}`);
  const changed = slots[step.slot];
  return Object.freeze({ ...snap, ingresses: Object.freeze(changed ? [...others, changed] : others) });
}

function checkSequences(buildOptions: BuildOptions, mix: Mix, runs: number): { incremental: number; builds: number } {
  let incremental = 0;
  let builds = 0;
  fc.assert(fc.property(fc.array(ingressSpec(mix), { minLength: SLOTS, maxLength: SLOTS }), fc.array(changeOf(mix), { minLength: 1, maxLength: 25 }), (initial, sequence) => {
    const slots: (V1Ingress | null)[] = initial.map((spec, slot) => (slot % 3 === 2 ? null : ingressOf(slot, spec)));
    let snap: Snapshot = Object.freeze({ ...startSnapshot(), ingresses: Object.freeze(slots.filter((i): i is V1Ingress => i !== null)) });
    const builder = createModelBuilder();
    assert.deepEqual(builder.build(snap, buildOptions), buildModel(snap, buildOptions));
    for (const step of sequence) {
      snap = apply(snap, slots, step);
      const built = builder.build(snap, buildOptions);
      builds++;
      if (builder.lastRouting() === 'incremental') incremental++;
      assert.deepEqual(built, buildModel(snap, buildOptions), `after ${JSON.stringify(step)} (${builder.lastRouting()} routing)`);
    }
  }), { seed, numRuns: runs });
  return { incremental, builds };
}

void describe('incremental routing over random Ingress changes', () => {
  const rows: readonly { readonly name: string; readonly options: BuildOptions; readonly mix: Mix; readonly share: number }[] = [
    { name: 'many hosts', options: options(), mix: SPREAD, share: 0.15 },
    { name: 'many hosts, --default-backend-service and --enable-ssl-passthrough', options: options({ defaultBackendService: 'default/fallback', enableSslPassthrough: true }), mix: SPREAD, share: 0.15 },
    { name: 'two hosts, catch-all rules and canaries', options: options(), mix: DENSE, share: 0.01 },
    { name: 'two hosts, catch-all rules and canaries, --default-backend-service', options: options({ defaultBackendService: 'default/fallback' }), mix: DENSE, share: 0.01 },
  ];
  for (const row of rows) {
    void it(`${row.name}: every build equals a fresh buildModel (model and failures, in order)`, () => {
      const { incremental, builds } = checkSequences(row.options, row.mix, 120);
      // The delta must carry a real share of the builds, or this tests the full build only.
      console.log(`${row.name}: ${incremental} of ${builds} builds incremental`);
      assert.ok(incremental > builds * row.share, `only ${incremental} of ${builds} builds were incremental`);
    });
  }
});
