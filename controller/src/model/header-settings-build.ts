// proxy-set-headers and add-headers in a build: the ConfigMap's settings name
// two ConfigMaps of headers (features/header-settings.ts); their data is read
// here on every build (model/header-configmaps.ts), and the controller watches
// them by name (referencedHeaderConfigMaps).

import type { V1ConfigMap } from '@kubernetes/client-node';
import type { ControllerSettings } from './features/parse.ts';
import { CONTROLLER_REQUEST_HEADERS, resolveHeaderConfigMap } from './header-configmaps.ts';
import type { GlobalSettings, HeaderSettings } from './types.ts';

/** `read` with Model.settings.headerSettings' header lists filled from the ConfigMaps they name, and their failures. */
export function withHeaderConfigMaps(read: ControllerSettings, configMaps: readonly V1ConfigMap[]): ControllerSettings {
  const headers = read.settings.headerSettings;
  if (headers.proxySetHeadersConfigMap === null && headers.addHeadersConfigMap === null) return read;
  const upstream = resolveHeaderConfigMap(headers.proxySetHeadersConfigMap, configMaps, { key: 'proxy-set-headers', reserved: CONTROLLER_REQUEST_HEADERS });
  const response = resolveHeaderConfigMap(headers.addHeadersConfigMap, configMaps, { key: 'add-headers', reserved: null });
  const headerSettings: HeaderSettings = Object.freeze({ ...headers, proxySetHeaders: upstream.headers, addHeaders: response.headers });
  const settings: GlobalSettings = Object.freeze({ ...read.settings, headerSettings });
  return { ...read, settings, failures: [...read.failures, ...upstream.failures, ...response.failures] };
}

/** The ConfigMaps of headers the settings name, deduplicated and sorted: what the controller watches by name besides its own. */
export function referencedHeaderConfigMaps(settings: GlobalSettings): { namespace: string; name: string }[] {
  const headers = settings.headerSettings;
  const ids = new Set<string>();
  for (const ref of [headers?.proxySetHeadersConfigMap, headers?.addHeadersConfigMap]) if (typeof ref === 'string') ids.add(ref);
  return [...ids].sort().map((id) => {
    const slash = id.indexOf('/');
    return { namespace: id.slice(0, slash), name: id.slice(slash + 1) };
  });
}
