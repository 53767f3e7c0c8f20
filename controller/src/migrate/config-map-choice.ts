// Which ConfigMap is ingress-nginx's: the one --configmap names, else one
// named as ingress-nginx's chart names it (`ingress-nginx-controller` for a
// release called ingress-nginx, `<release>-ingress-nginx-controller`
// otherwise). The choice is reported as a note, so a wrong guess is visible.

import type { V1ConfigMap } from '@kubernetes/client-node';
import { CommandLineExit } from '../cli/command-line-exit.ts';

export const INGRESS_NGINX_CONFIG_MAP = 'ingress-nginx-controller';

function keyOf(configMap: V1ConfigMap): string {
  return `${configMap.metadata?.namespace ?? ''}/${configMap.metadata?.name ?? ''}`;
}

/** True for a name ingress-nginx's chart gives its ConfigMap. */
export function looksLikeIngressNginx(name: string): boolean {
  return name === INGRESS_NGINX_CONFIG_MAP || name.endsWith(`-${INGRESS_NGINX_CONFIG_MAP}`);
}

export interface ConfigMapChoice {
  /** `namespace/name`, or null: none, the defaults apply. */
  readonly key: string | null;
  readonly notes: readonly string[];
}

/** Picks the ConfigMap among `configMaps`; `explicit` (--configmap) must be among them (else a usage error, exit 2). */
export function chooseConfigMap(configMaps: readonly V1ConfigMap[], explicit: string | null): ConfigMapChoice {
  if (explicit !== null) {
    if (!configMaps.some((item) => keyOf(item) === explicit)) throw CommandLineExit.usage(`--configmap ${explicit}: no such ConfigMap in the input`);
    return { key: explicit, notes: [] };
  }
  const candidates = configMaps.filter((item) => looksLikeIngressNginx(item.metadata?.name ?? '')).map(keyOf).sort((a, b) => {
    // The chart's default release name first, then by namespace/name.
    const exact = Number(b.endsWith(`/${INGRESS_NGINX_CONFIG_MAP}`)) - Number(a.endsWith(`/${INGRESS_NGINX_CONFIG_MAP}`));
    return exact !== 0 ? exact : a < b ? -1 : a > b ? 1 : 0;
  });
  const [first] = candidates;
  if (first === undefined) {
    return { key: null, notes: [`no ConfigMap named ${INGRESS_NGINX_CONFIG_MAP} (or <release>-${INGRESS_NGINX_CONFIG_MAP}) found: ConfigMap defaults apply; --configmap namespace/name reads another`] };
  }
  const others = candidates.length > 1 ? ` (also found: ${candidates.slice(1).join(', ')})` : '';
  return { key: first, notes: [`ConfigMap ${first} read as ingress-nginx's${others}; --configmap namespace/name reads another`] };
}
