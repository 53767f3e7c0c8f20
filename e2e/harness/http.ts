// One HTTP request through NGINX as a client would send it: a fresh
// connection per request (agent: false), so no keep-alive socket from an
// earlier request or a reloaded worker changes the answer.
import { request as httpRequest } from 'node:http';
import type { EchoReply } from '../cluster/echo/echo-server.ts';

export interface RequestOptions {
  /** Host header (virtual host), e.g. demo.localtest */
  readonly host?: string;
  /** Path and query, default "/" */
  readonly path?: string;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs?: number;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
  /** The echo pod that answered (its x-pod header), or null. */
  readonly pod: string | null;
  /** The echo pod's JSON reply (what reached the upstream), or null for other bodies. */
  readonly echo: EchoReply | null;
}

function parseEcho(body: string, contentType: string | undefined): EchoReply | null {
  if (!contentType?.startsWith('application/json')) return null;
  try {
    const parsed = JSON.parse(body) as Partial<EchoReply>;
    return typeof parsed.pod === 'string' && typeof parsed.path === 'string' ? (parsed as EchoReply) : null;
  } catch {
    return null;
  }
}

/** Sends one request to `baseUrl` (e.g. controller.http) and reads the whole answer. */
export function request(baseUrl: string, options: RequestOptions = {}): Promise<HttpResponse> {
  const url = new URL(options.path ?? '/', baseUrl);
  const headers: Record<string, string> = { ...options.headers };
  if (options.host) headers.host = options.host;
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers, agent: false, timeout: options.timeoutMs ?? 5_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', reject);
      res.once('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const pod = res.headers['x-pod'];
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          pod: typeof pod === 'string' ? pod : null,
          echo: parseEcho(body, res.headers['content-type']),
        });
      });
    });
    req.once('timeout', () => req.destroy(new Error(`request to ${url.href} (host ${options.host ?? '-'}) timed out`)));
    req.once('error', reject);
    req.end(options.body);
  });
}
