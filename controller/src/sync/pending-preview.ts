// The pending hosts of a change that only ADDS Ingresses, from a build of the
// added Ingresses alone, so that a new plain host is served before the sync's
// build of the whole model (at 10,000 Ingresses that build is most of the time
// from the API write to the first 200: docs/performance.md). The full build
// follows in the same sync and pushes the set it computes when it differs, so
// the preview only brings the push forward; it never decides anything the
// full build would not.
//
// It previews only what the added Ingresses decide by themselves:
// - every other input of the routing (IngressClasses, ConfigMaps) is the same
//   object as in the last build, and every Ingress of that build is still
//   there, unchanged (the store hands on frozen objects: identity is enough);
// - no added Ingress has spec.tls (its certificate reaches Lua with the full
//   sync; the host waits those few hundred ms for it rather than answer with
//   the default certificate);
// - a previewed host is in none of the running model, the one NGINX reloads
//   to, the last full build's (by name, alias or www twin), nor pending: a
//   host some Ingress already shapes (an annotated one whose reload is still
//   settling, say: its server-level settings, client certificates among them,
//   must not be bypassed) waits for the full build, which sees all of it.
// Its backends go to Lua before the host (only those Lua does not hold).
import type { V1Ingress } from '@kubernetes/client-node';
import type { Backend, Model, Snapshot } from '../model/types.ts';
import { pendingHosts, servedNames, type DynamicPending } from './pending-hosts.ts';

/** The Ingresses `after` adds to `before`, or null when the change is anything else (an update, a removal, a class or ConfigMap change). */
export function addedIngresses(before: Snapshot, after: Snapshot): V1Ingress[] | null {
  if (before.ingressClasses !== after.ingressClasses || before.configMaps !== after.configMaps) return null;
  if (after.ingresses.length <= before.ingresses.length) return null;
  const old = new Set(before.ingresses);
  const added: V1Ingress[] = [];
  for (const ingress of after.ingresses) if (!old.has(ingress)) added.push(ingress);
  // Every Ingress of `before` must still be there: the rest of `after` is exactly `before`.
  if (after.ingresses.length - added.length !== before.ingresses.length) return null;
  return added.some((ingress) => (ingress.spec?.tls?.length ?? 0) > 0) ? null : added;
}

/** What the preview pushes: the full pending set (what Lua holds plus the new hosts) and the backends Lua lacks for them. */
export interface PendingPreview {
  readonly pending: DynamicPending;
  readonly hosts: readonly string[];
  readonly backends: readonly Backend[];
}

/**
 * The pending set once the hosts of `preview` (the model of the added Ingresses alone) join `held` (what Lua
 * serves as pending now), or null when no new host can be previewed. `running`: the configuration NGINX
 * confirmed; `known`: the other models whose hosts are not new (the reload's target, the last full build);
 * `lua`: the model whose backends Lua holds.
 */
export function previewPending(running: Model, known: readonly Model[], preview: Model, held: DynamicPending, lua: Model): PendingPreview | null {
  const heldHosts = new Set(held.hosts.map((entry) => entry.host));
  const isNew = (host: string): boolean => !heldHosts.has(host) && known.every((model) => !servedNames(model).has(host));
  const fresh = pendingHosts(running, preview).hosts.filter((entry) => isNew(entry.host));
  if (fresh.length === 0) return null;
  const hosts = [...held.hosts, ...fresh].sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
  const wanted = new Set(fresh.flatMap((entry) => entry.paths.map((path) => path.key.split(' ')[1])));
  const inLua = new Set(lua.backends.map((backend) => backend.name));
  const backends = preview.backends.filter((backend) => wanted.has(backend.name) && !inLua.has(backend.name));
  return { pending: { hosts }, hosts: fresh.map((entry) => entry.host), backends };
}
