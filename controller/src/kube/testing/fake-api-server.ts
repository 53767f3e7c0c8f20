// A minimal Kubernetes API server for the store's tests: list and watch
// (chunked JSON lines) for any `/api/v1/...` or `/apis/<g>/<v>/...` collection,
// with resourceVersions, list pages (`limit` and `continue`, every page
// carrying the first page's resourceVersion, as a real API server's do),
// 410 Gone after a "compaction", the one field selector the store sends
// (`metadata.name=<name>`), and knobs to break things (drop watches,
// fail lists, go away: connections refused until it is back). Not a general API server: the e2e
// cluster is that. Objects are keyed by plural resource name.

import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { KubeConfig } from '@kubernetes/client-node';

/** A stored object: only metadata matters to the server. */
export interface FakeObject {
  metadata: { name: string; namespace?: string; resourceVersion?: string; [key: string]: unknown };
  [key: string]: unknown;
}

interface StoredEvent {
  readonly plural: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: FakeObject;
  readonly rv: number;
}

interface OpenWatch {
  readonly plural: string;
  readonly namespace: string | null;
  /** From a `metadata.name=<name>` field selector; null = every name. */
  readonly name: string | null;
  readonly res: ServerResponse;
}

/** One request the server saw, for assertions on paths and timing. */
export interface SeenRequest {
  readonly path: string;
  readonly watch: boolean;
  readonly query: URLSearchParams;
  readonly at: number;
}

/** How the server answers a watch from a resourceVersion older than the last compaction. */
export type ExpiredWatchReply = 'status-410' | 'error-event' | 'error-event-keep-open';

/** The only field selector served: one object by name. */
const NAME_SELECTOR = /^metadata\.name==?([^,=!]+)$/;
const COLLECTION = /^\/(?:api\/v1|apis\/[^/]+\/[^/]+)(?:\/namespaces\/([^/]+))?\/([^/]+)$/;

export class FakeApiServer {
  readonly requests: SeenRequest[] = [];
  /** What a watch from an expired resourceVersion gets. */
  expiredWatchReply: ExpiredWatchReply = 'status-410';
  private readonly server: Server;
  private readonly objects = new Map<string, Map<string, FakeObject>>();
  private readonly events: StoredEvent[] = [];
  private readonly watches = new Set<OpenWatch>();
  /** Streams that sent an ERROR event and were left open: they get nothing more. */
  private readonly heldOpen = new Set<ServerResponse>();
  private rv = 1;
  private port = 0;
  private compactedRv = 0;
  private watchErrorCode: number | null = null;
  private listFailures = 0;
  private listFailurePlural: string | null = null;

  private constructor() {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  /** Starts a server on 127.0.0.1 and a free port. */
  static async start(): Promise<FakeApiServer> {
    const fake = new FakeApiServer();
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.port = (fake.server.address() as AddressInfo).port;
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Stops listening and cuts every connection: requests are refused (ECONNREFUSED) until goUp(). Objects stay and may change meanwhile. */
  async goDown(): Promise<void> {
    this.dropWatches('end');
    for (const res of this.heldOpen) res.destroy();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  /** Listens again on the same port after goDown(). */
  async goUp(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => { this.server.off('error', reject); resolve(); });
    });
  }

  /** A KubeConfig pointing at this server. */
  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'fake' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'fake' }],
      currentContext: 'fake',
    });
    return kc;
  }

  /** Creates or replaces an object; emits ADDED or MODIFIED unless silent. */
  upsert(plural: string, object: FakeObject, silent = false): void {
    const bucket = this.bucket(plural);
    const key = keyOf(object);
    const type = bucket.has(key) ? 'MODIFIED' : 'ADDED';
    const stored: FakeObject = { ...object, metadata: { ...object.metadata, resourceVersion: String(++this.rv) } };
    bucket.set(key, stored);
    if (!silent) this.emit({ plural, type, object: stored, rv: this.rv });
  }

  /** Deletes an object; emits DELETED unless silent (a change the watch never delivered). */
  remove(plural: string, namespace: string | undefined, name: string, silent = false): void {
    const bucket = this.bucket(plural);
    const key = `${namespace ?? ''}/${name}`;
    const found = bucket.get(key);
    if (found === undefined) throw new Error(`no ${plural} ${key}`);
    bucket.delete(key);
    const rv = ++this.rv;
    if (!silent) this.emit({ plural, type: 'DELETED', object: { ...found, metadata: { ...found.metadata, resourceVersion: String(rv) } }, rv });
  }

  /** Forgets history up to now (like etcd compaction) and drops every open watch. */
  expireHistory(): void {
    this.compactedRv = ++this.rv;
    this.dropWatches('end');
  }

  /** Ends every open watch: 'end' closes it cleanly, 'destroy' resets the connection. */
  dropWatches(how: 'end' | 'destroy'): void {
    for (const watch of this.watches) {
      if (how === 'end') watch.res.end();
      else watch.res.destroy();
    }
    this.watches.clear();
  }

  /** The next n list requests (of `plural` only, when given) answer 500. */
  failNextLists(n: number, plural: string | null = null): void {
    this.listFailures = n;
    this.listFailurePlural = plural;
  }

  /** The next watch request gets one ERROR event with this code, then the stream ends. */
  failNextWatch(code: number): void {
    this.watchErrorCode = code;
  }

  openWatchCount(): number {
    return this.watches.size;
  }

  /** Streams still open after an ERROR event (the client should close them). */
  heldOpenCount(): number {
    return this.heldOpen.size;
  }

  async close(): Promise<void> {
    this.dropWatches('destroy');
    for (const res of this.heldOpen) res.destroy();
    this.server.closeAllConnections();
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private bucket(plural: string): Map<string, FakeObject> {
    let bucket = this.objects.get(plural);
    if (bucket === undefined) {
      bucket = new Map();
      this.objects.set(plural, bucket);
    }
    return bucket;
  }

  private emit(event: StoredEvent): void {
    this.events.push(event);
    for (const watch of this.watches) {
      if (matches(watch, event)) writeEvent(watch.res, event.type, event.object);
    }
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const watch = url.searchParams.get('watch') === 'true';
    this.requests.push({ path: url.pathname, watch, query: url.searchParams, at: Date.now() });
    const route = COLLECTION.exec(url.pathname);
    if (req.method !== 'GET' || route === null) {
      sendStatus(res, 404, 'NotFound', `no route for ${req.method} ${url.pathname}`);
      return;
    }
    const namespace = route[1] === undefined ? null : decodeURIComponent(route[1]);
    const plural = route[2];
    const selector = url.searchParams.get('fieldSelector');
    const selected = selector === null ? null : NAME_SELECTOR.exec(selector);
    if (selector !== null && selected === null) {
      sendStatus(res, 400, 'BadRequest', `unsupported field selector ${JSON.stringify(selector)}`);
      return;
    }
    const name = selected?.[1] ?? null;
    if (watch) this.serveWatch(res, plural, namespace, name, Number(url.searchParams.get('resourceVersion') ?? '0'));
    else this.serveList(res, plural, namespace, name, url.searchParams);
  }

  private serveList(res: ServerResponse, plural: string, namespace: string | null, name: string | null, query: URLSearchParams): void {
    if (this.listFailures > 0 && (this.listFailurePlural === null || this.listFailurePlural === plural)) {
      this.listFailures -= 1;
      sendStatus(res, 500, 'InternalError', 'injected list failure');
      return;
    }
    // A continue token is the first page's resourceVersion and the last key served.
    const token = query.get('continue');
    const { rv, after } = token ? (JSON.parse(Buffer.from(token, 'base64url').toString()) as { rv: number; after: string }) : { rv: this.rv, after: '' };
    const all = [...this.bucket(plural).values()]
      .filter((obj) => inNamespace(namespace, obj) && hasName(name, obj) && keyOf(obj) > after)
      .sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
    const limit = Number(query.get('limit') ?? '0');
    const items = limit > 0 ? all.slice(0, limit) : all;
    const last = items.at(-1);
    const more = items.length < all.length && last !== undefined
      ? { continue: Buffer.from(JSON.stringify({ rv, after: keyOf(last) })).toString('base64url'), remainingItemCount: all.length - items.length }
      : {};
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: String(rv), ...more }, items }));
  }

  private serveWatch(res: ServerResponse, plural: string, namespace: string | null, name: string | null, fromRv: number): void {
    if (this.watchErrorCode !== null) {
      const code = this.watchErrorCode;
      this.watchErrorCode = null;
      res.writeHead(200, { 'content-type': 'application/json' });
      const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'InternalError', code, message: 'injected' };
      res.end(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
      return;
    }
    if (fromRv < this.compactedRv) {
      const message = `too old resource version: ${fromRv} (${this.compactedRv})`;
      if (this.expiredWatchReply === 'status-410') {
        sendStatus(res, 410, 'Expired', message);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message };
      res.write(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
      if (this.expiredWatchReply === 'error-event') {
        res.end();
      } else {
        this.heldOpen.add(res);
        res.on('close', () => this.heldOpen.delete(res));
      }
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    // A real API server sends headers at once; Node would hold them until the first event.
    res.flushHeaders();
    const watch: OpenWatch = { plural, namespace, name, res };
    this.watches.add(watch);
    res.on('close', () => this.watches.delete(watch));
    for (const event of this.events) {
      if (event.rv > fromRv && matches(watch, event)) writeEvent(res, event.type, event.object);
    }
  }
}

function keyOf(object: FakeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

function inNamespace(namespace: string | null, object: FakeObject): boolean {
  return namespace === null || object.metadata.namespace === namespace;
}

function hasName(name: string | null, object: FakeObject): boolean {
  return name === null || object.metadata.name === name;
}

function matches(watch: OpenWatch, event: StoredEvent): boolean {
  return watch.plural === event.plural && inNamespace(watch.namespace, event.object) && hasName(watch.name, event.object);
}

function writeEvent(res: ServerResponse, type: string, object: FakeObject): void {
  res.write(`${JSON.stringify({ type, object })}\n`);
}

function sendStatus(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code }));
}
