// The validating webhook's HTTPS server (the API server only calls webhooks
// over TLS). Bounded in every direction: body size (413), requests in flight
// (429), time to send the request (408 / closed), one path, one method, JSON
// only. The review itself is pure and synchronous (reviewAdmission), so
// nothing user-supplied is executed; the model bounds an Ingress's size
// (model/ingress-size.ts), so a review stays under ~100 ms.

import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { IngressRef } from '../model/types.ts';
import type { ReviewReply } from './admission-review.ts';

/** ingress-nginx's path, so existing ValidatingWebhookConfigurations keep working. */
export const WEBHOOK_PATH = '/networking/v1/ingresses';

export type ReviewOutcome = 'allowed' | 'denied' | 'error';

/** Two Ingresses of 3 MiB and the review around them. */
export const DEFAULT_MAX_BODY_BYTES = 7 * 1024 * 1024;
/**
 * Reviews run one at a time on the event loop anyway; this bounds the bodies held in memory
 * (DEFAULT_MAX_IN_FLIGHT × maxBodyBytes) and the queue behind a burst.
 */
export const DEFAULT_MAX_IN_FLIGHT = 8;

export interface WebhookServerOptions {
  readonly host: string;
  /** 0 = any free port. */
  readonly port: number;
  readonly certPem: string;
  readonly keyPem: string;
  /** Reviews one parsed JSON body. */
  readonly review: (body: unknown) => ReviewReply;
  readonly logger: Logger;
  /**
   * Default DEFAULT_MAX_BODY_BYTES: an UPDATE's review carries the Ingress twice (object and
   * oldObject), each at most the 3 MiB the API server takes in a request body.
   */
  readonly maxBodyBytes?: number;
  /** Requests read or reviewed at once (default DEFAULT_MAX_IN_FLIGHT); more are answered 429. */
  readonly maxInFlight?: number;
  /** Whole request, headers and body (default 10 s; the API server gives webhooks 10 s by default). */
  readonly timeoutMs?: number;
  /** After every request: for ingress-nginx's check_success / check_errors counters. `ingress` is the checked one, else null. */
  readonly onReviewed?: (outcome: ReviewOutcome, ms: number, ingress: IngressRef | null) => void;
}

export interface WebhookServer {
  readonly port: number;
  /** Serves a new certificate to connections opened from now on (renewal without a restart). */
  setCertificate(certPem: string, keyPem: string): void;
  close(): Promise<void>;
}

function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close', ...headers });
  res.end(`${text}\n`);
}

const tooLarge = (limit: number): string => `AdmissionReview body larger than ${limit} bytes; an Ingress this large is refused`;

/** Reads the body up to `limit` bytes; null (after answering 413) when it is larger. */
function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      sendText(res, 413, tooLarge(limit));
      req.resume();
      resolve(null);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        sendText(res, 413, tooLarge(limit));
        req.destroy();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** How a request ended, and the Ingress it checked (only a 200 review names one). */
interface Handled { readonly outcome: ReviewOutcome; readonly ingress: IngressRef | null }

async function handle(req: IncomingMessage, res: ServerResponse, options: WebhookServerOptions): Promise<Handled> {
  const error: Handled = { outcome: 'error', ingress: null };
  const path = new URL(req.url ?? '/', 'https://webhook').pathname;
  if (path !== WEBHOOK_PATH) { sendText(res, 404, `only ${WEBHOOK_PATH} is served`); return error; }
  if (req.method !== 'POST') { sendText(res, 405, 'use POST with an AdmissionReview'); return error; }
  const body = await readBody(req, res, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  if (body === null) return error;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    sendText(res, 400, 'body is not JSON');
    return error;
  }
  const reply = options.review(parsed);
  if (reply.status === 400) { sendText(res, 400, reply.error); return error; }
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(reply.body));
  return { outcome: reply.decision.allowed ? 'allowed' : 'denied', ingress: reply.decision.ingress };
}

/** Starts listening; resolves once the port is bound. */
export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const { logger } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  let inFlight = 0;
  const server: Server = createServer({
    cert: options.certPem,
    key: options.keyPem,
    requestTimeout: timeoutMs,
    headersTimeout: timeoutMs,
    // Node checks the two timeouts only this often (default 30 s).
    connectionsCheckingInterval: Math.min(1000, timeoutMs),
  }, (req, res) => {
    const started = performance.now();
    if (inFlight >= maxInFlight) {
      // The API server applies the webhook's failurePolicy; kubectl shows this text.
      sendText(res, 429, `admission webhook busy: ${maxInFlight} reviews in flight; try again`, { 'Retry-After': '1' });
      req.resume();
      options.onReviewed?.('error', performance.now() - started, null);
      return;
    }
    inFlight += 1;
    let done = false;
    const finish = (): void => {
      if (!done) inFlight -= 1;
      done = true;
    };
    // A client that goes away mid-body frees its slot too.
    res.once('close', finish);
    handle(req, res, options).then(
      ({ outcome, ingress }) => { finish(); options.onReviewed?.(outcome, performance.now() - started, ingress); },
      (err: unknown) => {
        finish();
        logger.error({ err }, 'admission request failed');
        if (!res.headersSent) sendText(res, 500, 'internal error');
        else res.destroy();
        options.onReviewed?.('error', performance.now() - started, null);
      },
    );
  });
  server.on('tlsClientError', (err) => logger.debug({ err }, 'admission TLS handshake failed'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => { server.off('error', reject); resolve(); });
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ address: `${options.host}:${port}`, path: WEBHOOK_PATH }, 'validating webhook listening');
  return {
    port,
    setCertificate: (certPem, keyPem) => server.setSecureContext({ cert: certPem, key: keyPem }),
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
