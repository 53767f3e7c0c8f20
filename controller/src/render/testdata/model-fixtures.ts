// Hand-built Model pieces and fixed options for render's tests. Models are
// frozen deeply so a test can never pass by mutating shared input.

import { fileURLToPath } from 'node:url';
import type { Backend, Location, Model, ProxySettings, Server } from '../../model/types.ts';
import type { DataplaneValues, RenderOptions } from '../render-options.ts';

/** rootfs/etc/nginx/template in this checkout. */
export const TEMPLATE_DIR = fileURLToPath(new URL('../../../../rootfs/etc/nginx/template', import.meta.url));

/** ingress-nginx's defaults for the per-location proxy settings. */
export const DEFAULT_PROXY: ProxySettings = {
  bodySize: '1m',
  connectTimeout: 5,
  readTimeout: 60,
  sendTimeout: 60,
  protocol: 'HTTP',
};

/** Stand-in data-plane paths: golden files must not depend on where the runtime is unpacked. */
export const PLACEHOLDER_DATAPLANE: DataplaneValues = {
  modules: ['/golden/dataplane/modules/ndk_http_module.so', '/golden/dataplane/modules/ngx_http_lua_module.so'],
  luaPackagePath: '/golden/lua/?.lua;;',
  luaPackageCPath: '/golden/lib/?.so;;',
};

/** Options of every golden file; the nginx -t check swaps the placeholder paths for real ones. */
export function goldenOptions(dataplane: DataplaneValues = PLACEHOLDER_DATAPLANE, prefix = '/golden/prefix'): RenderOptions {
  return {
    templateDir: TEMPLATE_DIR,
    prefix,
    listenAddress: '127.0.0.1',
    httpPort: 8080,
    httpsPort: 8443,
    statusPort: 10246,
    workerProcesses: 1,
    dataplane,
    errorLogLevel: 'notice',
    accessLog: true,
  };
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export function backend(name: string, endpoints: Backend['endpoints'] = []): Backend {
  const [namespace = 'default', service = name] = name.split('-');
  return { name, namespace, service, port: 80, endpoints, loadBalance: 'round_robin' };
}

export function proxied(path: string, match: Location['match'], backendName: string, extra: Partial<Location> = {}): Location {
  return {
    path,
    match,
    target: { kind: 'backend', backend: backendName },
    ingress: { namespace: 'default', name: 'web' },
    proxy: DEFAULT_PROXY,
    rewriteTarget: null,
    sslRedirect: true,
    forceSslRedirect: false,
    ...extra,
  };
}

export function notFound(path: string, match: Location['match'] = 'prefix'): Location {
  return { path, match, target: { kind: 'not-found' }, ingress: null, proxy: DEFAULT_PROXY, rewriteTarget: null, sslRedirect: true, forceSslRedirect: false };
}

export function server(hostname: string, locations: Location[]): Server {
  return { hostname, locations };
}

/** ingress-nginx's TLS defaults, as the ConfigMap module gives them without a ConfigMap. */
export const DEFAULT_SETTINGS: Model['settings'] = { sslProtocols: ['TLSv1.2', 'TLSv1.3'], sslCiphers: 'HIGH:!aNULL', hsts: { enabled: true, maxAge: 31536000, includeSubdomains: true, preload: false }, httpRedirectCode: 308,
  accessLog: { enabled: true, format: '$remote_addr "$request" $status [$proxy_upstream_name] $req_id', escapeJson: false }, proxyDefaults: DEFAULT_PROXY };

/** No certificates: every host gets the default certificate. */
export const NO_TLS: Model['tls'] = { certificates: [], hosts: [], defaultCertificate: null };

export function model(servers: Server[], backends: Backend[], settings: Model['settings'] = DEFAULT_SETTINGS): Model {
  return deepFreeze({ servers, backends, tls: NO_TLS, settings });
}
