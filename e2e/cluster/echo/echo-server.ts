// The "container" of a simulated pod: an HTTP server on its own loopback
// address that answers every request with who it is and what it received, so
// a test can see which pod served a request. Owns nothing else; imports only node.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What every answer's JSON body holds. */
export interface EchoReply {
  readonly pod: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly bodyLength: number;
}

export interface EchoOptions {
  /** A loopback address, e.g. 127.0.1.7. */
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly podName: string;
  /** How long close() lets in-flight requests finish before cutting them (default 10 s). */
  readonly drainTimeoutMs?: number;
}

export interface EchoServer {
  readonly podName: string;
  readonly host: string;
  readonly port: number;
  /** http://host:port */
  readonly url: string;
  /** Stops accepting, lets in-flight requests finish (closing their keep-alive connections), then resolves. */
  close(): Promise<void>;
}

/** Longest `?sleep=` a request may ask for, so a test cannot hang a server. */
const MAX_SLEEP_MS = 10_000;

/** `?status=NNN` (200..599) answers with that status, the same JSON body (an app's error pages, for custom-http-errors). */
function statusOf(url: URL): number {
  const raw = Number(url.searchParams.get('status') ?? '200');
  return Number.isInteger(raw) && raw >= 200 && raw <= 599 ? raw : 200;
}

function sleepOf(url: URL): number {
  const raw = Number(url.searchParams.get('sleep') ?? '0');
  return Number.isFinite(raw) && raw > 0 ? Math.min(raw, MAX_SLEEP_MS) : 0;
}

function answer(podName: string, closing: () => boolean, req: IncomingMessage, res: ServerResponse): void {
  let bodyLength = 0;
  req.on('data', (chunk: Buffer) => { bodyLength += chunk.length; });
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://echo');
    const reply = (): void => {
      const headers: Record<string, string> = { 'x-pod': podName };
      // While draining, tell keep-alive clients to go elsewhere for their next request.
      if (closing()) headers.connection = 'close';
      // A Content-Length, as most apps send: NGINX's gzip-min-length reads only that header.
      if (url.pathname === '/healthz') {
        res.writeHead(200, { ...headers, 'content-type': 'text/plain', 'content-length': '2' }).end('ok');
        return;
      }
      const echoed: EchoReply = { pod: podName, method: req.method ?? '', path: req.url ?? '/', headers: req.headers, bodyLength };
      const body = JSON.stringify(echoed);
      res.writeHead(statusOf(url), { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body);
    };
    const sleep = sleepOf(url);
    if (sleep > 0) setTimeout(reply, sleep);
    else reply();
  });
  req.on('error', () => res.destroy());
}

/** Starts an echo server; `?sleep=ms` on any path delays the answer (to test draining), `?status=NNN` sets its status. */
export async function startEcho(options: EchoOptions): Promise<EchoServer> {
  if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(options.host)) {
    throw new Error(`echo: host must be a loopback IPv4 address, got ${JSON.stringify(options.host)}`);
  }
  let closing = false;
  const server = createServer((req, res) => answer(options.podName, () => closing, req, res));
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      closing = true;
      const cutoff = setTimeout(() => server.closeAllConnections(), options.drainTimeoutMs ?? 10_000);
      server.close(() => {
        clearTimeout(cutoff);
        resolve();
      });
      // Idle keep-alive sockets would hold close() open; busy ones close after their response.
      server.closeIdleConnections();
    });
    return closed;
  };
  return { podName: options.podName, host: options.host, port, url: `http://${options.host}:${port}`, close };
}
