// Plain-JSON requests to a Kubernetes API, authenticated by client-node's
// KubeConfig. Why not the generated typed clients: watch events arrive as raw
// JSON while typed lists are converted to model classes (Dates, renamed
// fields); one plain-JSON shape everywhere keeps comparisons and writes exact.
import { request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** A failed API call; `status` is the HTTP status (0 when the server was not reached). */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  readonly status: number;
  readonly reason: string;
  constructor(message: string, status: number, reason: string) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

export interface KubeRest {
  get<T>(path: string): Promise<T>;
  create<T>(path: string, body: unknown): Promise<T>;
  replace<T>(path: string, body: unknown): Promise<T>;
  remove(path: string): Promise<void>;
  /** Closes the kept-alive connections. */
  close(): void;
}

const REQUEST_TIMEOUT_MS = 15_000;

export function createKubeRest(kc: KubeConfig): KubeRest {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const server = cluster.server.replace(/\/+$/, '');
  // client-node puts a new Agent on every request it prepares: a TLS handshake
  // and a parsed CA per call, which during a roll of 20 apps cost the machine
  // more CPU than the controller. One kept-alive agent with the same TLS
  // material serves every call; credentials still come from each call's options.
  let agent: HttpsAgent | undefined;

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const url = new URL(server + path);
    const options: RequestOptions = { method, headers: { accept: 'application/json' }, timeout: REQUEST_TIMEOUT_MS };
    await kc.applyToHTTPSOptions(options);
    if (url.protocol === 'https:') {
      const { ca, cert, key, rejectUnauthorized, servername } = options;
      agent ??= new HttpsAgent({ keepAlive: true, ca, cert, key, rejectUnauthorized, servername });
      options.agent = agent;
    }
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload !== undefined) options.headers = { ...options.headers, 'content-type': 'application/json' };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return await new Promise<T>((resolve, reject) => {
      const req = send(url, options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) {
            resolve((text === '' ? {} : JSON.parse(text)) as T);
            return;
          }
          let reason = '';
          let message = text.slice(0, 300);
          try {
            const parsed = JSON.parse(text) as { reason?: string; message?: string };
            reason = parsed.reason ?? '';
            message = parsed.message ?? message;
          } catch {
            // not a Status object: keep the raw text
          }
          reject(new KubeApiError(`${method} ${path}: ${status} ${message}`, status, reason));
        });
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', (err) => reject(err instanceof KubeApiError ? err : new KubeApiError(`${method} ${path}: ${err.message}`, 0, '')));
      req.end(payload);
    });
  }

  return {
    get: <T>(path: string) => call<T>('GET', path),
    create: <T>(path: string, body: unknown) => call<T>('POST', path, body),
    replace: <T>(path: string, body: unknown) => call<T>('PUT', path, body),
    remove: async (path: string) => {
      try {
        await call('DELETE', path);
      } catch (err) {
        if (!(err instanceof KubeApiError && err.status === 404)) throw err;
      }
    },
    close: () => agent?.destroy(),
  };
}
