// "Serve first, materialize later": which hosts of the next model the
// catch-all server serves through Lua (lua/resty_ingress/pending.lua) while
// the reload that renders their server {} is settling, parsing and starting
// workers. A host is pending when NGINX's confirmed configuration (`running`)
// has no server for it, and everything of it is data Lua already applies:
// - its name is an exact DNS name (no wildcard), not the catch-all's, and no
//   running server answers it (name, alias, or www twin): a pending host never
//   shadows a rendered server;
// - its server has no aliases, www redirect or client certificates;
// - every location routes to a backend with the default policy (Location.policy
//   empty) and renders as a bare proxied location: no feature partial (a
//   feature set globally prints one in every location), no EWMA log phase,
//   plain proxy_pass to the balancer, exact or plain prefix locations (a regex
//   host waits for the reload).
// The paths sent are the locations NGINX will have (render/location-blocks.ts),
// so Lua picks the one NGINX would pick. Anything else waits for the reload,
// as before. Once the reload is confirmed, `running` has the host and it
// leaves the set (the next sync pushes the smaller set).
import type { Model, Server } from '../model/types.ts';
import { buildLocationBlocks, globallySetFeatures, type BackendLabels, type LocationContext } from '../render/location-blocks.ts';

/** One location of a pending host: `location = path` (exact) or `location path` (prefix), and its $resty_route. */
export interface PendingPath {
  readonly path: string;
  readonly match: 'exact' | 'prefix';
  readonly key: string;
}

/** The JSON Lua receives on POST /configuration/pending: the FULL set, hosts sorted. */
export interface DynamicPending {
  readonly hosts: readonly { readonly host: string; readonly paths: readonly PendingPath[] }[];
}

export const NO_PENDING: DynamicPending = Object.freeze({ hosts: Object.freeze([]) });

const CATCH_ALL = '_';
/** As the Lua side checks (pending_api.lua): lowercase, no wildcard, no port. */
const PLAIN_HOST = /^[a-z0-9][a-z0-9.-]{0,252}$/u;
const BALANCER_PASS = 'proxy_pass http://upstream_balancer';

const servedMemo = new WeakMap<Model, ReadonlySet<string>>();

/** Every name a server of `model` answers (once per model: endpoint syncs at 10,000 hosts reuse it). */
export function servedNames(model: Model): ReadonlySet<string> {
  const known = servedMemo.get(model);
  if (known !== undefined) return known;
  const names = new Set<string>();
  for (const server of model.servers) {
    names.add(server.hostname);
    for (const alias of server.aliases ?? []) names.add(alias);
    if (server.wwwRedirectFrom !== undefined) names.add(server.wwwRedirectFrom);
  }
  servedMemo.set(model, names);
  return names;
}

/** The paths of `server` when all of it is plain, else null (it waits for the reload). */
function plainPaths(server: Server, backends: ReadonlyMap<string, BackendLabels>, context: LocationContext, globallySet: ReturnType<typeof globallySetFeatures>): PendingPath[] | null {
  if (server.aliases !== undefined || server.wwwRedirectFrom !== undefined || server.clientAuth !== undefined) return null;
  for (const location of server.locations) {
    if (location.route.kind !== 'backend' || Object.keys(location.policy).length > 0 || location.match === 'regex') return null;
    if (!location.route.key.startsWith('- ') && !location.route.key.startsWith('r ')) return null;
  }
  let blocks;
  try {
    blocks = buildLocationBlocks(server.hostname, server.locations, backends, context, globallySet);
  } catch {
    return null; // the renderer refuses it too: the reload reports it
  }
  const paths: PendingPath[] = [];
  for (const block of blocks) {
    if (block.proxy === null) continue; // the generated `location /` answering 404: the catch-all answers a miss
    const { proxy } = block;
    if (block.features.length > 0 || proxy.feedback || proxy.backendTls !== null || proxy.pass.directive !== BALANCER_PASS
      || (block.modifier !== '=' && block.modifier !== '')) return null;
    paths.push({ path: block.path, match: block.modifier === '=' ? 'exact' : 'prefix', key: proxy.route });
  }
  return paths.length > 0 ? paths : null;
}

/** The hosts of `next` the catch-all serves until the configuration NGINX confirmed (`running`) has their server. */
export function pendingHosts(running: Model | null, next: Model): DynamicPending {
  if (running === null) return NO_PENDING; // NGINX starts on the whole configuration
  const served = servedNames(running);
  const fresh = next.servers.filter((server) => server.hostname !== CATCH_ALL && !served.has(server.hostname) && PLAIN_HOST.test(server.hostname));
  if (fresh.length === 0) return NO_PENDING;
  const context: LocationContext = { https: false, settings: next.settings };
  const globallySet = globallySetFeatures(next.settings);
  const backends = new Map(next.backends.map((backend) => [backend.name, backend]));
  const hosts: DynamicPending['hosts'][number][] = [];
  for (const server of fresh) {
    const paths = plainPaths(server, backends, context, globallySet);
    if (paths !== null) hosts.push({ host: server.hostname, paths });
  }
  hosts.sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
  return hosts.length > 0 ? { hosts } : NO_PENDING;
}
