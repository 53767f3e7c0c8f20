// The decision: what must change in NGINX to go from the running model to the
// next one. This is the ONE place that knows which parts of the model are
// dynamic (applied by Lua at run time) and which need a reload: it blanks the
// dynamic parts of both models and compares the rest. The dynamic parts are
// the model's, not a list of features: endpoints (HTTP backends' and TCP/UDP listeners', the
// latter fed to njs), Backend.affinity, certificates, and
// Model.routes, where the builder puts the config of every feature the
// registry declares dynamic (model/features/registry.ts). A backend that no
// location routes to (a canary's) is dynamic as a whole.
//
// May import: model/types.ts and fast-deep-equal. Nothing else of the flow.

import deepEqual from 'fast-deep-equal';
import type { Backend, BackendPatch, DynamicBackend, DynamicCertificates, DynamicCredentials, DynamicRoutes, DynamicStream, Model, StreamService } from '../model/types.ts';

/** Why a decision was taken, for the sync log line and metrics. */
export type Decision =
  /** Nothing to do: NGINX already runs this model. */
  | { readonly kind: 'skip' }
  /**
   * Only dynamic parts changed: send the backends to Lua — `patch` when not
   * null (only what changed), else `backends` (the full set) — and
   * `certificates` when not null (null = certificates unchanged), no reload.
   */
  | ({ readonly kind: 'dynamic' } & DynamicPush)
  /** nginx.conf changes: push as for `dynamic` first (new backends must be known before traffic reaches them), then reload. */
  | ({ readonly kind: 'reload' } & DynamicPush);

/** What a dynamic or reload decision sends to Lua. */
export interface DynamicPush {
  /** The full set, for a POST when Lua's state is unknown (`patch` is null). */
  readonly backends: readonly DynamicBackend[];
  /** Only the backends that changed since what Lua holds; null = POST `backends` instead. */
  readonly patch: BackendPatch | null;
  /** Names in `patch` (set and removed), sorted; every name when Lua's state is unknown. */
  readonly changed: readonly string[];
  readonly certificates: DynamicCertificates | null;
  /** The route policies (the full set) when they differ from what Lua holds, else null. */
  readonly routes: DynamicRoutes | null;
  /** The basic/digest users (the full set) when they differ from what Lua holds, else null (absent: null). */
  readonly credentials?: DynamicCredentials | null;
  /** Every TCP/UDP listener's endpoints (the full set, for njs) when they differ from what NGINX holds, else null (absent: null). */
  readonly streams?: readonly DynamicStream[] | null;
}

/** What NGINX currently runs, as far as the controller knows. */
export interface RunningState {
  /** The model whose static part NGINX runs (or is reloading to), null before the first reload. */
  readonly model: Model | null;
  /** True when the data plane reported an empty backend store (NGINX just (re)started): push again. */
  readonly dataplaneEmpty: boolean;
  /**
   * The model whose dynamic part Lua holds, when it differs from `model`
   * (e.g. pushed before a reload that then failed); default `model`.
   */
  readonly pushed?: Model | null;
}

/** The part of a backend Lua receives. */
export function toDynamicBackend(backend: Backend): DynamicBackend {
  const dynamic = { name: backend.name, endpoints: backend.endpoints, loadBalance: backend.loadBalance };
  // Only a backend with a hash or affinity carries the field: every other push stays as it was.
  const hashed = backend.hash === null || backend.hash === undefined ? dynamic : { ...dynamic, hash: backend.hash };
  return backend.affinity === null || backend.affinity === undefined ? hashed : { ...hashed, affinity: backend.affinity };
}

/** The full dynamic state of a model, in model order (sorted by name). */
export function dynamicBackends(model: Model): DynamicBackend[] {
  return model.backends.map(toDynamicBackend);
}

/** What Lua receives for the certificates of a model (the full set). */
export function dynamicCertificates(model: Model): DynamicCertificates {
  return {
    certificates: model.tls.certificates.map((c) => ({ id: c.id, cert: c.cert, key: c.key })),
    hosts: Object.fromEntries(model.tls.hosts.map((h) => [h.host, h.certificate])),
    defaultCertificate: model.tls.defaultCertificate,
    ...(model.tls.clientAuth === undefined ? {} : { clientAuth: model.tls.clientAuth }),
  };
}

const NO_TLS: Model['tls'] = { certificates: [], hosts: [], defaultCertificate: null };

/** The model with every dynamic field blanked: what nginx.conf depends on. */
export function staticPart(model: Model): Model {
  const { credentials: _users, ...rest } = model;
  return {
    ...rest,
    backends: routedBackends(model).map((b) => ({ ...b, endpoints: [], loadBalance: 'round_robin', hash: null, affinity: null })),
    settings: Object.fromEntries(Object.entries(model.settings).filter(([name]) => !DYNAMIC_SETTINGS.has(name))) as Model['settings'],
    // Certificates, rotations and the host map live in Lua only.
    tls: NO_TLS,
    routes: [],
    ...(model.streams === undefined ? {} : { streams: model.streams.map((service) => ({ ...service, endpoints: [] })) }),
  };
}

// Fields of a Backend / Model that Lua applies at run time; every other field feeds nginx.conf.
const DYNAMIC_BACKEND_FIELDS: ReadonlySet<string> = new Set(['endpoints', 'loadBalance', 'hash', 'affinity']);
const DYNAMIC_MODEL_FIELDS: ReadonlySet<string> = new Set(['tls', 'backends', 'routes', 'settings', 'credentials', 'streams']);
const DYNAMIC_STREAM_FIELDS: ReadonlySet<string> = new Set(['endpoints']);
/**
 * The global configs (Model.settings) of the features the registry declares dynamic (output
 * `lua`: decide.test.ts checks the two lists agree): they reach Lua through the backends and
 * routes, never nginx.conf.
 */
export const DYNAMIC_SETTINGS: ReadonlySet<string> = new Set(['loadBalance', 'upstreamHash', 'canary', 'affinity', 'serviceUpstream']);

/** The backends some location routes to (the others exist for Lua alone). */
function routedBackends(model: Model): readonly Backend[] {
  return model.backends.every((b) => b.routed) ? model.backends : model.backends.filter((b) => b.routed);
}

/** True when two records agree on every field outside `skip` (no copies: a rebuild at 10k Ingresses compares every backend). */
function sameOutside(a: object, b: object, skip: ReadonlySet<string>): boolean {
  const recordA = a as Record<string, unknown>;
  const recordB = b as Record<string, unknown>;
  let count = 0;
  for (const key in recordA) {
    count++;
    if (skip.has(key)) continue;
    const valueA = recordA[key];
    const valueB = recordB[key];
    // Most fields are strings and numbers: compare those without a call.
    if (valueA !== valueB && (typeof valueA !== 'object' || !(key in recordB) || !deepEqual(valueA, valueB))) return false;
  }
  for (const key in recordB) if (--count < 0 || !(key in recordA)) return false;
  return count === 0;
}

function withoutCredentials(model: Model): Model {
  if (!('credentials' in model)) return model;
  const { credentials: _users, ...rest } = model;
  return rest;
}

/** deepEqual(staticPart(a), staticPart(b)) without building either copy. */
export function sameStaticPart(a: Model, b: Model): boolean {
  // Model.credentials is present only while some Ingress has users: its arrival is no static change.
  if (('credentials' in a) !== ('credentials' in b)) return sameStaticPart(withoutCredentials(a), withoutCredentials(b));
  if (!sameOutside(a, b, DYNAMIC_MODEL_FIELDS)) return false;
  if (!sameStreamListeners(a.streams, b.streams)) return false;
  if (a.settings !== b.settings && !sameOutside(a.settings, b.settings, DYNAMIC_SETTINGS)) return false;
  const [backendsA, backendsB] = [routedBackends(a), routedBackends(b)];
  if (backendsA.length !== backendsB.length) return false;
  return backendsA.every((backend, i) => {
    const other = backendsB[i];
    // A builder hands on the same Backend object while its Service and slices are unchanged.
    return backend === other || (other !== undefined && sameOutside(backend, other, DYNAMIC_BACKEND_FIELDS));
  });
}

/** True when two models listen on the same TCP/UDP ports the same way (their endpoints aside). */
function sameStreamListeners(a: readonly StreamService[] | undefined, b: readonly StreamService[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return a.every((service, i) => sameOutside(service, b[i] as StreamService, DYNAMIC_STREAM_FIELDS));
}

/** What njs receives for the TCP/UDP listeners of a model (the full set). */
export function dynamicStreams(model: Model): DynamicStream[] {
  return (model.streams ?? []).map(({ protocol, port, endpoints }) => ({ protocol, port, endpoints }));
}

/** The stream endpoints to feed: null when what njs holds is already this (or there is nothing to hold). */
function streamsToPush(held: Model | null, next: Model): DynamicStream[] | null {
  const wanted = dynamicStreams(next);
  if (held === null) return wanted.length === 0 ? null : wanted;
  return deepEqual(dynamicStreams(held), wanted) ? null : wanted;
}

/** The model whose dynamic part Lua holds, or null when unknown (nothing pushed, or NGINX lost it). */
function heldByLua(running: RunningState): Model | null {
  if (running.dataplaneEmpty) return null;
  return running.pushed === undefined ? running.model : running.pushed;
}

/** The certificates to push: null when what Lua holds is already this. */
function certificatesToPush(held: Model | null, next: Model): DynamicCertificates | null {
  if (held !== null && deepEqual(held.tls, next.tls)) return null;
  return dynamicCertificates(next);
}

/** The route policies to push: null when what Lua holds is already this. */
function routesToPush(held: Model | null, next: Model): DynamicRoutes | null {
  if (held !== null && deepEqual(held.routes ?? [], next.routes)) return null;
  return { routes: next.routes };
}

/** The basic/digest users to push: null when what Lua holds is already this. */
function credentialsToPush(held: Model | null, next: Model): DynamicCredentials | null {
  // Nothing held and nothing to hold: Lua's empty store is already right (no push for clusters without auth).
  if (held === null ? next.credentials === undefined : deepEqual(held.credentials ?? [], next.credentials ?? [])) return null;
  return { sets: next.credentials ?? [] };
}

/** The incremental push to `next` given the `changed` names (changedBackends): changed backends set, vanished ones removed. */
export function backendPatch(next: Model, changed: readonly string[]): BackendPatch {
  const wanted = new Set(changed);
  const set = next.backends.filter((b) => wanted.has(b.name)).map(toDynamicBackend);
  const present = new Set(set.map((b) => b.name));
  return { set, remove: changed.filter((name) => !present.has(name)) };
}

/** True when Lua must get `after` in place of `before` (same name). */
function dynamicChanged(before: Backend, after: Backend): boolean {
  return before !== after && (before.loadBalance !== after.loadBalance || !deepEqual(before.endpoints, after.endpoints)
    || !deepEqual(before.hash ?? null, after.hash ?? null) || !deepEqual(before.affinity ?? null, after.affinity ?? null));
}

/** Names of backends whose dynamic part differs (added, removed or changed), sorted. */
export function changedBackends(before: Model | null, after: Model): string[] {
  const previous = before?.backends ?? [];
  // Most syncs move endpoints only: the same names at the same places, compared pairwise without a map.
  if (previous.length === after.backends.length && after.backends.every((b, i) => previous[i]?.name === b.name)) {
    return after.backends.filter((b, i) => dynamicChanged(previous[i] as Backend, b)).map((b) => b.name).sort();
  }
  const old = new Map(previous.map((b) => [b.name, b]));
  const changed = new Set<string>();
  for (const b of after.backends) {
    const prev = old.get(b.name);
    if (!prev || dynamicChanged(prev, b)) changed.add(b.name);
    old.delete(b.name);
  }
  for (const name of old.keys()) changed.add(name);
  return [...changed].sort();
}

/** Decide how to apply `next` given what runs. Pure. */
export function decideApply(running: RunningState, next: Model): Decision {
  const held = heldByLua(running);
  const certificates = certificatesToPush(held, next);
  const changed = held === null ? next.backends.map((b) => b.name) : changedBackends(held, next);
  const push: DynamicPush = {
    backends: dynamicBackends(next),
    patch: held === null ? null : backendPatch(next, changed),
    changed,
    certificates,
    routes: routesToPush(held, next),
    credentials: credentialsToPush(held, next),
    streams: streamsToPush(held, next),
  };
  if (running.model === null || !sameStaticPart(running.model, next)) return { kind: 'reload', ...push };
  if (changed.length === 0 && certificates === null && push.routes === null && push.credentials === null && push.streams === null) return { kind: 'skip' };
  return { kind: 'dynamic', ...push };
}
