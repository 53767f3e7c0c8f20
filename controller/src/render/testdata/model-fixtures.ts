// Hand-built Model pieces and fixed options for render's tests. Models are
// frozen deeply so a test can never pass by mutating shared input.

import { fileURLToPath } from 'node:url';
import { DEFAULT_SETTINGS as MODEL_DEFAULTS } from '../../model/features/parse.ts';
import { routeFlags, routeKey } from '../../model/route-key.ts';
import type { Backend, Location, Model, Policy, ProxyConfig, Server } from '../../model/types.ts';
import type { DataplaneValues, RenderOptions } from '../render-options.ts';

/** rootfs/etc/nginx/template in this checkout. */
export const TEMPLATE_DIR = fileURLToPath(new URL('../../../../rootfs/etc/nginx/template', import.meta.url));

/** ingress-nginx's defaults for the per-location proxy settings. */
export const DEFAULT_PROXY: ProxyConfig = MODEL_DEFAULTS.proxy;

/** Stand-in data-plane paths: golden files must not depend on where the runtime is unpacked. */
export const PLACEHOLDER_DATAPLANE: DataplaneValues = {
  modules: ['/golden/dataplane/modules/ndk_http_module.so', '/golden/dataplane/modules/ngx_http_lua_module.so'],
  streamModule: '/golden/dataplane/modules/ngx_stream_module.so',
  streamJsModule: '/golden/dataplane/modules/ngx_stream_js_module.so',
  streamScript: '/golden/njs/resty_stream.js',
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
  return { name, namespace, service, port: 80, endpoints, loadBalance: 'round_robin', hash: null, affinity: null, routed: true };
}

/** What a test location may set besides its path, match and backend. */
export interface LocationExtra {
  readonly ingress?: Location['ingress'];
  readonly policy?: Policy;
  /** The host its route key names (default `shop.test`). */
  readonly host?: string;
  /** Global settings its route flags follow (default DEFAULT_SETTINGS). */
  readonly settings?: Model['settings'];
}

export function proxied(path: string, match: Location['match'], backendName: string, extra: LocationExtra = {}): Location {
  const ingress = extra.ingress === undefined ? { namespace: 'default', name: 'web' } : extra.ingress;
  const policy = extra.policy ?? {};
  const [namespace = 'default', service = backendName] = backendName.split('-');
  const key = routeKey(routeFlags(policy, extra.settings ?? DEFAULT_SETTINGS), backendName, extra.host ?? 'shop.test', ingress,
    { namespace, service, port: 80 }, path);
  return { path, match, route: { kind: 'backend', backend: backendName, key }, ingress, policy };
}

export function notFound(path: string, match: Location['match'] = 'prefix', policy: Policy = {}): Location {
  return { path, match, route: { kind: 'not-found' }, ingress: null, policy };
}

/** Each location as placed on `hostname` (its route key names the server), the same object every time. */
const placed = new WeakMap<Location, Map<string, Location>>();

function onHost(location: Location, hostname: string): Location {
  if (location.route.kind !== 'backend') return location;
  const copies = placed.get(location) ?? new Map<string, Location>();
  placed.set(location, copies);
  const fields = location.route.key.split(' ');
  fields[2] = hostname;
  const copy = copies.get(hostname) ?? { ...location, route: { ...location.route, key: fields.join(' ') } };
  copies.set(hostname, copy);
  return copy;
}

export function server(hostname: string, locations: Location[]): Server {
  return { hostname, locations: locations.map((location) => onHost(location, hostname)) };
}

/** The features' defaults, with a short cipher list and access log format (golden files stay readable). */
export const DEFAULT_SETTINGS: Model['settings'] = {
  ...MODEL_DEFAULTS,
  tls: { ...MODEL_DEFAULTS.tls, ciphers: 'HIGH:!aNULL' },
  accessLog: { enabled: true, format: '$remote_addr "$request" $status [$proxy_upstream_name] $req_id', escapeJson: false },
};

/** No certificates: every host gets the default certificate. */
export const NO_TLS: Model['tls'] = { certificates: [], hosts: [], defaultCertificate: null };

export function model(servers: Server[], backends: Backend[], settings: Model['settings'] = DEFAULT_SETTINGS): Model {
  return deepFreeze({ servers, backends, tls: NO_TLS, settings, routes: [] });
}
