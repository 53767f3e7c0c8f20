// The controller's HTTP server on --healthz-port (ingress-nginx: 10254):
// /healthz (liveness), /readyz (readiness) and /metrics (Prometheus). It
// answers only GET/HEAD on those paths; anything else is a plain 404/405.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { HealthChecks } from './health-checks.ts';

export interface HealthServerOptions {
  readonly host: string;
  /** 0 = any free port (tests). */
  readonly port: number;
  /** --health-check-path: liveness answers here too (ingress-nginx's one health path); /healthz always does. */
  readonly healthPath?: string;
  readonly registry: Registry;
  readonly checks: HealthChecks;
  /** Runs before each scrape (drains per-request data from NGINX); must not reject. */
  readonly beforeScrape?: () => Promise<void>;
  readonly logger: Logger;
}

export interface HealthServer {
  /** The port actually bound. */
  readonly port: number;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(body);
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const { checks, registry, logger } = options;

  const probe = async (res: ServerResponse, check: () => Promise<string | null>): Promise<void> => {
    const reason = await check();
    if (reason === null) send(res, 200, 'ok\n');
    else send(res, 500, `${reason}\n`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n');
    switch (path) {
      case '/healthz':
        return probe(res, checks.live);
      case '/readyz':
        return probe(res, checks.ready);
      case '/metrics':
        await options.beforeScrape?.();
        return send(res, 200, await registry.metrics(), registry.contentType);
      default:
        return path === options.healthPath ? probe(res, checks.live) : send(res, 404, 'not found\n');
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      logger.error({ err, url: req.url }, 'healthz server request failed');
      if (!res.headersSent) send(res, 500, 'internal error\n');
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
