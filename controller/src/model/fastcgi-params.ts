// fastcgi-params-configmap → the `fastcgi_param` lines of an Ingress's FCGI
// locations, read per build from the ConfigMap it names (ingress-nginx v1.15.1:
// the same namespace as the Ingress unless allow-cross-namespace-resources;
// every key a parameter name and every value checked). The ConfigMap is not
// among the ones the controller watches by flag: referencedConfigMaps()
// tells the composition which ConfigMaps to watch by name, and until one is
// listed (or when it is missing or refused) its Ingress is not served.

import type { V1ConfigMap, V1Ingress } from '@kubernetes/client-node';
import { makeFailure, makeWarning, quoteValue } from './failure.ts';
import { parseObjectReference, splitObjectReference } from './features/object-ref.ts';
import type { Failure, FastcgiConfig, IngressRef } from './types.ts';

/** ingress-nginx's regexValidIndexAnnotationAndKey: a parameter name. */
const PARAM_NAME = /^[A-Za-z0-9._-]{1,128}$/u;
/**
 * ingress-nginx's validFCGIValue without braces (`${name}`: NGINX's own quoting, which our
 * renderer never lets into nginx.conf), and a `$` only before a variable name.
 */
const PARAM_VALUE = /^(?:[A-Za-z0-9_\-/.]|\$[A-Za-z_][A-Za-z0-9_]*)*$/u;
/** ingress-nginx's validFCGIValue itself. */
const INGRESS_NGINX_VALUE = /^[A-Za-z0-9\-_${}/.]*$/u;
const MAX_PARAMS = 100;
const MAX_VALUE_LENGTH = 1024;

/** The namespace and name of the ConfigMap `config` names for an Ingress of `namespace`, or why it may not. */
export function paramsConfigMapRef(config: FastcgiConfig, namespace: string, allowCrossNamespace: boolean): { namespace: string; name: string } | string | null {
  if (config.paramsConfigMap === null) return null;
  const ref = splitObjectReference(config.paramsConfigMap, namespace);
  if (ref.namespace !== namespace && !allowCrossNamespace) return `fastcgi-params-configmap ${config.paramsConfigMap} is not in the Ingress's namespace ${namespace}`;
  return ref;
}

/** The params of a ConfigMap, sorted by name, or why it cannot be used (naming the key, never quoting a whole value). */
export function readFastcgiParams(configMap: V1ConfigMap, id: string): { ok: true; params: [string, string][] } | { ok: false; reason: string } {
  const data: Readonly<Record<string, unknown>> = configMap.data ?? {};
  const names = Object.keys(data).sort();
  if (names.length > MAX_PARAMS) return { ok: false, reason: `ConfigMap ${id} has more than ${MAX_PARAMS} keys` };
  const params: [string, string][] = [];
  for (const name of names) {
    const value = data[name];
    if (!PARAM_NAME.test(name)) return { ok: false, reason: `ConfigMap ${id}: key ${quoteValue(name)} is not a FastCGI parameter name` };
    if (typeof value !== 'string' || value.length > MAX_VALUE_LENGTH || !PARAM_VALUE.test(value)) {
      const takenThere = typeof value === 'string' && INGRESS_NGINX_VALUE.test(value);
      return { ok: false, reason: `ConfigMap ${id}: the value of ${name} is ${takenThere ? 'not supported: only' : 'not'} letters, digits, -_/. and $variables (no \${…})` };
    }
    params.push([name, value]);
  }
  return { ok: true, params };
}

/** `config` with the params of the ConfigMap it names, or the failure that keeps its Ingress from being served. */
export function resolveFastcgiParams(
  config: FastcgiConfig, ingress: IngressRef, configMaps: readonly V1ConfigMap[], allowCrossNamespace: boolean, annotationsPrefix: string,
): { ok: true; config: FastcgiConfig } | { ok: false; failure: Failure } {
  const ref = paramsConfigMapRef(config, ingress.namespace, allowCrossNamespace);
  if (ref === null) return { ok: true, config };
  const field = `metadata.annotations[${annotationsPrefix}/fastcgi-params-configmap]`;
  const fail = (reason: string): { ok: false; failure: Failure } => ({ ok: false, failure: makeFailure(ingress, 'InvalidFastcgiParams', field, `${reason}; the Ingress is skipped`) });
  if (typeof ref === 'string') return fail(ref);
  const id = `${ref.namespace}/${ref.name}`;
  const found = configMaps.find((item) => item?.metadata?.namespace === ref.namespace && item?.metadata?.name === ref.name);
  // A warning, so that admission lets a new Ingress in: its ConfigMap is watched only once an Ingress
  // names it, and the Ingress is served as soon as the ConfigMap is listed.
  if (found === undefined) return { ok: false, failure: makeWarning(ingress, 'FastcgiParamsNotFound', field, `ConfigMap ${id} not found (or not listed yet); the Ingress is not served until it is`) };
  const read = readFastcgiParams(found, id);
  if (!read.ok) return fail(read.reason);
  return { ok: true, config: Object.freeze({ ...config, params: Object.freeze(read.params.map((pair) => Object.freeze(pair))) }) };
}

/** The annotations that name a ConfigMap read at build time: fastcgi-params-configmap, auth-proxy-set-headers (auth-proxy-headers.ts). */
export const CONFIGMAP_REFERENCES: readonly string[] = Object.freeze(['fastcgi-params-configmap', 'auth-proxy-set-headers']);

/**
 * The ConfigMaps the CONFIGMAP_REFERENCES annotations of `ingresses` name (those they may
 * name), deduplicated and sorted: what the controller watches by name besides its own.
 */
export function referencedConfigMaps(ingresses: readonly V1Ingress[], annotationsPrefix: string, allowCrossNamespace: boolean): { namespace: string; name: string }[] {
  const found = new Map<string, { namespace: string; name: string }>();
  for (const ingress of ingresses) {
    const namespace = ingress?.metadata?.namespace;
    if (typeof namespace !== 'string') continue;
    for (const annotation of CONFIGMAP_REFERENCES) {
      const raw: unknown = ingress?.metadata?.annotations?.[`${annotationsPrefix}/${annotation}`];
      if (typeof raw !== 'string') continue;
      const parsed = parseObjectReference(raw, true);
      if (!parsed.ok) continue;
      const ref = splitObjectReference(parsed.value, namespace);
      if (ref.namespace !== namespace && !allowCrossNamespace) continue;
      found.set(`${ref.namespace}/${ref.name}`, ref);
    }
  }
  return [...found.keys()].sort().map((id) => found.get(id) as { namespace: string; name: string });
}
