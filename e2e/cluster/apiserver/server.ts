// startApiServer: the local Kubernetes API server that e2e tests, the
// simulator and the playground run kubectl, helm and the controller against.
// Owns: HTTP listening, authentication (bearer tokens), RBAC, and the fault
// hooks; the object semantics live in store.ts.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { Store } from './store.ts';
import { decodeBody, parseRoute, readBody, sendError, sendJson } from './http.ts';
import { handleResource, verbOf, type HandlerContext } from './handlers.ts';
import { apiGroup, apiGroupList, apiResourceList, coreVersions, versionInfo } from './discovery.ts';
import { authorize, defaultGroups, selectedName, type UserInfo } from './rbac.ts';
import { forbidden, methodNotAllowed, notFound, unauthorized } from './errors.ts';
import { effectiveUser, reviewAccess } from './access-review.ts';
import { openApiDocument } from './openapi.ts';
import { Admission, type ServiceResolver } from './admission.ts';
import { kubeconfigYaml, makeServingCert } from './connection.ts';

export interface ApiServerOptions {
  readonly host?: string;
  /** 0 picks a free port */
  readonly port?: number;
  /** authorize every request from the stored RBAC objects (the admin token bypasses) */
  readonly rbac?: boolean;
  /** bearer token → identity; when given (or rbac is on) requests without a valid token are 401 */
  readonly tokens?: Readonly<Record<string, UserInfo>>;
  /** HTTPS with a fresh self-signed certificate (default); client-go sends tokens only over TLS */
  readonly tls?: boolean;
  readonly bookmarkIntervalMs?: number;
  /** where a webhook's clientConfig.service is served (Service IPs do not route here) */
  readonly resolveService?: ServiceResolver;
  /** how many change events are kept for watch resumption */
  readonly eventWindow?: number;
}

export interface ApiServer {
  readonly url: string;
  readonly store: Store;
  readonly adminToken: string;
  /** the self-signed serving certificate (PEM) to trust, when serving HTTPS */
  readonly caPem: string | undefined;
  /** a token for `user` (registered on first use; service accounts get their groups) */
  tokenFor(user: string, groups?: readonly string[]): string;
  /** kubeconfig YAML with a bearer token for `user` (default: the admin) */
  kubeconfigFor(user?: string): string;
  writeKubeconfig(path: string, user?: string): Promise<string>;
  /** end every open watch (clients must resume or relist) */
  dropWatches(): void;
  /** make every current resourceVersion too old: the next resume is 410 Gone */
  expireResourceVersions(): void;
  /** stop listening and listen again on the same port; the objects survive */
  restart(): Promise<void>;
  /** stop listening (connections refused) until up(); the store keeps working in-process */
  down(): Promise<void>;
  /** listen again on the same port after down() */
  up(): Promise<void>;
  stop(): Promise<void>;
}

const ADMIN: UserInfo = { user: 'admin', groups: ['system:masters', 'system:authenticated'] };

function servePath(res: ServerResponse, path: string, group: string | undefined, version: string | undefined, address: string): void {
  let doc: object | undefined;
  if (path === '/version') doc = versionInfo();
  else if (path === '/api') doc = coreVersions(address);
  else if (path === '/apis') doc = apiGroupList();
  else if (path === '/healthz' || path === '/livez' || path === '/readyz') { res.writeHead(200, { 'Content-Type': 'text/plain' }); res.end('ok'); return; }
  else if (path === '/openapi/v2' || path.startsWith('/openapi/v3')) doc = openApiDocument(path);
  else if (version !== undefined) doc = apiResourceList(group ?? '', version);
  else if (group !== undefined) doc = apiGroup(group);
  if (!doc) throw notFound('', '', path);
  sendJson(res, 200, doc);
}

export async function startApiServer(opts: ApiServerOptions = {}): Promise<ApiServer> {
  const host = opts.host ?? '127.0.0.1';
  const store = new Store({ eventWindow: opts.eventWindow });
  for (const ns of ['default', 'kube-system', 'kube-public']) store.create('namespaces', { metadata: { name: ns } });
  const adminToken = `admin-${randomBytes(16).toString('hex')}`;
  const tokens = new Map<string, UserInfo>(Object.entries(opts.tokens ?? {}));
  tokens.set(adminToken, ADMIN);
  const authRequired = opts.rbac === true || opts.tokens !== undefined;
  const ctx: HandlerContext = {
    store, bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 10_000, openWatches: new Set(), admission: new Admission(store, opts.resolveService),
  };
  let port = opts.port ?? 0;

  const authenticate = (req: IncomingMessage): UserInfo => {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (token) {
      const user = tokens.get(token);
      if (!user) throw unauthorized();
      return user;
    }
    if (authRequired) throw unauthorized();
    return ADMIN;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const user = effectiveUser(req, authenticate(req));
      const route = parseRoute(url.pathname);
      if (route.type === 'path') { servePath(res, route.path, route.group, route.version, `${host}:${port}`); return; }
      const verb = verbOf(req.method ?? 'GET', route, url.searchParams);
      if (route.info.review) {
        if (verb !== 'create') throw methodNotAllowed(`${route.info.plural} only supports create`);
        sendJson(res, 201, reviewAccess(store, user, decodeBody(await readBody(req), req.headers['content-type']), opts.rbac === true));
        return;
      }
      // A list/watch narrowed to one name is authorized as a request for that object (rbac.ts selectedName).
      const name = route.name ?? (verb === 'list' || verb === 'watch' ? selectedName(url.searchParams.get('fieldSelector')) : undefined);
      const attrs = { verb, group: route.info.group, resource: route.info.plural, subresource: route.subresource, namespace: route.namespace, name };
      if (opts.rbac && !authorize(store, user, attrs)) throw forbidden(user.user, verb, route.info.plural, route.info.group, route.namespace);
      await handleResource(ctx, req, res, route, verb, url.searchParams, user);
    } catch (err) {
      sendError(res, err);
    }
  };

  const serving = opts.tls === false ? undefined : await makeServingCert(host);
  const newServer = (): Server => {
    const listener = (req: IncomingMessage, res: ServerResponse): void => { void handle(req, res); };
    return serving ? createHttpsServer({ key: serving.key, cert: serving.cert }, listener) : createHttpServer(listener);
  };
  let server = newServer();
  const listen = async (): Promise<void> => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => { server.off('error', reject); resolve(); });
    });
    port = (server.address() as AddressInfo).port;
  };
  const close = async (): Promise<void> => {
    store.log.closeAll();
    for (const res of ctx.openWatches) res.end();
    ctx.openWatches.clear();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  };
  await listen();

  const tokenFor = (user: string, groups?: readonly string[]): string => {
    if (user === ADMIN.user && !groups) return adminToken;
    for (const [token, info] of tokens) if (info.user === user && (!groups || groups.join() === info.groups.join())) return token;
    const token = `t-${randomBytes(16).toString('hex')}`;
    tokens.set(token, { user, groups: groups ?? defaultGroups(user) });
    return token;
  };
  const api: ApiServer = {
    get url() { return `${serving ? 'https' : 'http'}://${host}:${port}`; },
    caPem: serving?.cert,
    store,
    adminToken,
    tokenFor,
    kubeconfigFor: (user = ADMIN.user) => kubeconfigYaml(api.url, user, tokenFor(user), serving?.cert),
    writeKubeconfig: async (path, user) => { await writeFile(path, api.kubeconfigFor(user), { mode: 0o600 }); return path; },
    dropWatches: () => { store.log.closeAll(); },
    expireResourceVersions: () => { store.expireResourceVersions(); },
    restart: async () => { await api.down(); await api.up(); },
    down: () => close(),
    up: async () => { server = newServer(); await listen(); },
    stop: async () => { store.close(); await close(); },
  };
  return api;
}
