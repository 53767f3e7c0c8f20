// Which Ingresses a change reaches (for incremental routing, routing-delta.ts):
// placement is oldest-wins per host + path and a backend's settings come from
// its oldest claim, so an Ingress's outcome depends only on the Ingresses
// sharing a host or a backend name with it. The reach of a change is the
// closure of the changed Ingresses over shared hosts and backend names; a
// delta may replay it only when every member places nothing beyond its own
// rule hosts and their backends.

import type { V1Ingress } from '@kubernetes/client-node';
import type { IngressTranslation, TranslationCache } from './ingress-translation.ts';
import { CATCH_ALL_HOST } from './names.ts';
import { claimedNames, indexed, type RoutingRecord } from './routing-record.ts';

/** Past this many Ingresses to place again, build in full (as cheap then). */
const MAX_TOUCHED = 2048;

/** The Ingresses to place again, and the hosts and backend names they name. */
export interface Reach {
  readonly touched: ReadonlySet<V1Ingress>;
  readonly hosts: ReadonlySet<string>;
  readonly names: ReadonlySet<string>;
}

/** True when this Ingress's outcome can change others' across hosts or backends it does not name. */
export function reachesAcross(translation: IngressTranslation): boolean {
  if (translation.failures.some((failure) => failure.reason === 'RegexNotChecked')) return true;
  const policy = translation.features?.policy;
  if (policy === undefined) return false;
  return (policy.serverAlias?.names.length ?? 0) > 0 || policy.redirect?.fromToWww === true
    || policy.sslPassthrough?.enabled === true || policy.customErrors !== undefined;
}

/** True when placing this Ingress touches nothing but its rule hosts and their backends. */
function isLocal(translation: IngressTranslation): boolean {
  if (reachesAcross(translation)) return false;
  const features = translation.features;
  // Refused: nothing placed, or the 503 paths of a protection it asked for (denied-paths.ts), local unless on the catch-all.
  if (features === null) return !translation.hosts.includes(CATCH_ALL_HOST);
  const policy = features.policy;
  return features.dynamic.canary?.enabled !== true && policy.clientCerts?.secret == null
    && (policy.fastcgi?.paramsConfigMap ?? null) === null && (policy.externalAuth?.proxySetHeadersConfigMap ?? null) === null
    && translation.defaultBackend === null && !translation.hosts.includes(CATCH_ALL_HOST);
}

/** The closure of `changed` over shared hosts and backend names, or null when some member is not local or it grows too large. */
export function reachOf(record: RoutingRecord, translations: TranslationCache, changed: readonly V1Ingress[]): Reach | null {
  const touched = new Set<V1Ingress>();
  const hosts = new Set<string>();
  const names = new Set<string>();
  const queue = [...changed];
  for (let ingress = queue.pop(); ingress !== undefined; ingress = queue.pop()) {
    if (touched.has(ingress)) continue;
    touched.add(ingress);
    if (touched.size > MAX_TOUCHED) return null;
    const translation = translations.translate(ingress);
    if (!isLocal(translation)) return null;
    for (const host of translation.hosts) {
      if (hosts.has(host)) continue;
      hosts.add(host);
      queue.push(...indexed(record.hosts, host));
    }
    for (const name of claimedNames(translation)) {
      if (names.has(name)) continue;
      names.add(name);
      queue.push(...indexed(record.backends, name));
    }
  }
  return { touched, hosts, names };
}
