// Named Ingress change sequences for incremental routing (routing-delta.ts),
// beside the random ones of routing-delta.test.ts: the states where only a
// particular fallback keeps the builder exact, which random sequences rarely
// reach (the closure of a change there usually holds a canary or a rule
// without host and stops the delta before). Every step must equal a fresh
// buildModel, and take the routing source the row names: a row expecting
// 'full' fails when its fallback is removed (the delta then keeps a stale
// global default Backend, or a canary Backend's stale affinity); a row
// expecting 'incremental' shows the fallback does not refuse more than it
// must. The Service rows show a change to a Service no path names keeps the
// routing, and a miss (a path to a Service not yet created) counts as named.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { RoutingSource } from './build.ts';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ann, configMap, options } from './testdata/fixtures.ts';
import { replay, SPARE, type Change, type IngressSpec, type PathSpec } from './testdata/routing-changes.ts';
import type { BuildOptions } from './types.ts';

/** A prefix path to the Service's port 80. */
function to(value: string, service: string): PathSpec {
  return { value, exact: false, service, port: 80 };
}

/** An Ingress in `default` created `created` seconds in, one rule per host. */
function spec(created: number, rules: Record<string, readonly PathSpec[]>, annotations: Record<string, string> = {}): IngressSpec {
  return { created, namespace: 'default', rules: Object.entries(rules).map(([host, paths]) => ({ host, paths })), annotations, defaultBackend: false, tls: false };
}

function replace(slot: number, next: IngressSpec): Change {
  return { kind: 'ingress', slot, spec: next };
}

const FALLBACK = options({ defaultBackendService: 'default/fallback' });
const CATCH_ALL_ROOT = spec(0, { '': [to('/', 'cache')] });
const A_WITHOUT_ROOT = spec(1, { 'a.example': [to('/x', 'web')] });
const A_WITH_ROOT = spec(1, { 'a.example': [to('/x', 'web'), to('/', 'web')] });
const B_WITH_ROOT = spec(2, { 'b.example': [to('/', 'api')] });
const EWMA = { [ann('load-balance')]: 'ewma' };
const CANARY = { [ann('canary')]: 'true', [ann('canary-weight')]: '30' };
const CREATE_SPARE: Change = { kind: 'service', name: SPARE, port: 80 };

interface Row {
  readonly name: string;
  readonly options: BuildOptions;
  readonly initial: readonly (IngressSpec | null)[];
  readonly changes: readonly Change[];
  /** How each change's build must get its routing. */
  readonly sources: readonly RoutingSource[];
  readonly configMaps?: readonly V1ConfigMap[];
}

const rows: readonly Row[] = [
  {
    // The global default Backend is claimed by the hosts without `/` only: the last one gaining
    // its `/` removes the Backend, losing it brings it back; a delta keeps the Backend as it was.
    name: 'the catch-all `/` is an Ingress\'s and a host gains, then loses, its `/`: full builds',
    options: FALLBACK,
    initial: [CATCH_ALL_ROOT, A_WITHOUT_ROOT, B_WITH_ROOT],
    changes: [replace(1, A_WITH_ROOT), replace(1, A_WITHOUT_ROOT)],
    sources: ['full', 'full'],
  },
  {
    name: 'the catch-all `/` is the global default\'s and a host gains, then loses, its `/`: incremental',
    options: FALLBACK,
    initial: [null, A_WITHOUT_ROOT, B_WITH_ROOT],
    changes: [replace(1, A_WITH_ROOT), replace(1, A_WITHOUT_ROOT)],
    sources: ['incremental', 'incremental'],
  },
  {
    // The oldest claim decides the global default Backend's load balancing; a delta keeps that Backend.
    name: 'a path routes to the --default-backend-service Service and its load balancing changes: full builds',
    options: FALLBACK,
    initial: [null, spec(1, { 'a.example': [to('/x', 'fallback')] }, EWMA), B_WITH_ROOT],
    changes: [replace(1, spec(1, { 'a.example': [to('/x', 'fallback')] })), replace(1, spec(1, { 'a.example': [to('/x', 'fallback')] }, EWMA))],
    sources: ['full', 'full'],
  },
  {
    // web's affinity comes from the older Ingress on b.example; the canary's backend (api) takes
    // web's. Its closure holds the canary (through a.example), which stops the delta.
    name: 'a canary takes its affinity from a backend another host\'s Ingress decides, which changes: full builds',
    options: options(),
    initial: [spec(0, { 'b.example': [to('/', 'web')] }, { [ann('affinity')]: 'cookie' }), spec(1, { 'a.example': [to('/', 'web')] }), spec(2, { 'a.example': [to('/', 'api')] }, CANARY)],
    changes: [replace(0, spec(0, { 'b.example': [to('/', 'web')] })), replace(0, spec(0, { 'b.example': [to('/', 'web')] }, { [ann('affinity')]: 'cookie' }))],
    sources: ['full', 'full'],
  },
  {
    // A's alias is dropped while B serves alias.example as a host. B's closure does not hold A:
    // only the record's block (a cross-host feature exists) stops the delta.
    name: 'an Ingress leaves the host another\'s server-alias names, then comes back: full builds',
    options: options(),
    initial: [spec(0, { 'a.example': [to('/', 'web')] }, { [ann('server-alias')]: 'alias.example' }), spec(1, { 'alias.example': [to('/', 'api')] })],
    changes: [{ kind: 'ingress', slot: 1, spec: null }, replace(1, spec(1, { 'alias.example': [to('/', 'api')] }))],
    sources: ['full', 'full'],
  },
  {
    // No Ingress is served while the ConfigMap asks for a protection we do not give: the record
    // holds no Ingress of ours, so a delta would place every one as added.
    name: 'the ConfigMap fails closed and an Ingress is added: full builds',
    options: options({ configMap: 'ingress/resty-ingress' }),
    configMaps: [configMap({ 'enable-modsecurity': 'true' })],
    initial: [A_WITHOUT_ROOT],
    changes: [replace(2, B_WITH_ROOT)],
    sources: ['full'],
  },
  {
    name: 'a plain Ingress beside a canary\'s host changes its load balancing: incremental',
    options: options(),
    initial: [spec(0, { 'b.example': [to('/', 'db')] }), spec(1, { 'a.example': [to('/', 'web')] }), spec(2, { 'a.example': [to('/', 'api')] }, CANARY)],
    changes: [replace(0, spec(0, { 'b.example': [to('/', 'db')] }, EWMA))],
    sources: ['incremental'],
  },
  {
    // As `kubectl apply` of a Service and the Ingress routing to it (in one snapshot, or one after the other).
    name: 'a Service nothing names is created, then an Ingress routing to it; both at once: the routing stands, then incremental',
    options: options(),
    initial: [A_WITHOUT_ROOT, B_WITH_ROOT],
    changes: [
      CREATE_SPARE, replace(2, spec(3, { 'c.example': [to('/', SPARE)] })),
      { kind: 'batch', steps: [{ kind: 'service', name: 'spare2', port: 80 }, replace(3, spec(4, { 'd.example': [to('/', 'spare2')] }))] },
    ],
    sources: ['reused', 'incremental', 'incremental'],
  },
  {
    // web in `other`, and `default`'s db, are looked up by no path.
    name: 'Services nothing routes to change and are deleted: the routing stands',
    options: options(),
    initial: [A_WITHOUT_ROOT, B_WITH_ROOT],
    changes: [{ kind: 'service', name: 'web', namespace: 'other', port: 81 }, { kind: 'service', name: 'db', port: null }],
    sources: ['reused', 'reused'],
  },
  {
    // A miss is a lookup: the path's "Service not found" becomes a route.
    name: 'a path routes to a Service not yet created, which is then created, then deleted: full builds',
    options: options(),
    initial: [A_WITHOUT_ROOT, spec(2, { 'b.example': [to('/', SPARE)] })],
    changes: [CREATE_SPARE, { kind: 'service', name: SPARE, port: null }],
    sources: ['full', 'full'],
  },
  {
    name: 'the --default-backend-service Service changes: a full build',
    options: FALLBACK,
    initial: [A_WITHOUT_ROOT],
    changes: [{ kind: 'service', name: 'fallback', port: 81 }],
    sources: ['full'],
  },
];

void describe('incremental routing: named change sequences', () => {
  for (const row of rows) {
    void it(row.name, () => {
      assert.deepEqual(replay(row.options, row.initial, row.changes, row.configMaps), row.sources);
    });
  }
});
