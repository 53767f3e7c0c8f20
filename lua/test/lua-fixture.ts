// A running NGINX with our Lua (the CONTRACTS.md wiring), a proxy server that
// routes by the `x-backend` request header, and node:http backends that
// answer with their own name. Shared by the lua/ tests and the controller's
// Lua client test.
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { findDataplane } from '../../controller/src/nginx/dataplane.ts';
import { contractHttpBlock, freePort, startNginx, type RunningNginx } from './nginx-harness.ts';

export interface LuaNginx {
  readonly nginx: RunningNginx;
  readonly statusUrl: string;
  readonly proxyUrl: string;
  /** error.log length already checked by assertCleanErrorLog: each test judges its own lines. */
  logChecked: number;
}

export interface EchoBackend {
  readonly name: string;
  readonly address: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Starts NGINX (2 workers) with the contract's Lua wiring, a header-routed proxy server and `extraServers` verbatim (a test's own locations). */
export async function startLuaNginx(extraServers = ''): Promise<LuaNginx> {
  const dataplane = findDataplane();
  const statusPort = await freePort();
  const proxyPort = await freePort();
  const proxyServer = `
    server {
      listen 127.0.0.1:${proxyPort};
      location / {
        set $proxy_upstream_name $http_x_backend;
        set $resty_route "- $http_x_backend _ - - - /";
        log_by_lua_block { require("resty_ingress.balancer").log() }
        proxy_connect_timeout 2s;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_pass http://upstream_balancer;
      }
    }`;
  const nginx = await startNginx({ dataplane, readyPort: statusPort, http: contractHttpBlock(dataplane, statusPort, proxyServer + extraServers) });
  return { nginx, statusUrl: `http://127.0.0.1:${statusPort}`, proxyUrl: `http://127.0.0.1:${proxyPort}`, logChecked: 0 };
}

/** node:http servers on 127.0.0.<2+i> answering their name, after delayMs. */
export async function startEchoBackends(names: readonly string[], delayMs = 0): Promise<EchoBackend[]> {
  return Promise.all(
    names.map(async (name, i) => {
      const server: Server = createServer((_req, res) => {
        setTimeout(() => res.end(name), delayMs);
      });
      const address = `127.0.0.${2 + i}`;
      await new Promise<void>((done) => server.listen(0, address, done));
      const { port } = server.address() as AddressInfo;
      const close = (): Promise<void> =>
        new Promise((done) => {
          server.closeAllConnections();
          server.close(() => done());
        });
      return { name, address, port, close };
    }),
  );
}

/** Echo backends `names`, then a Lua NGINX (with `extraServers`): what most configuration suites start in before(). */
export async function startLuaSuite(names: readonly string[], extraServers = ''): Promise<{ fixture: LuaNginx; echo: EchoBackend[] }> {
  const echo = await startEchoBackends(names);
  try {
    return { fixture: await startLuaNginx(extraServers), echo };
  } catch (err) {
    await Promise.all(echo.map((b) => b.close()));
    throw err;
  }
}

/** after(): stops what startLuaSuite started (either may be unset when before() failed). */
export async function stopLuaSuite(fixture: LuaNginx | undefined, echo: readonly EchoBackend[] | undefined): Promise<void> {
  await fixture?.nginx.stop();
  await Promise.all((echo ?? []).map((b) => b.close()));
}

/** A POST /configuration/backends body: one round-robin backend `name` whose one endpoint is `echo`. */
export function singleBackendBody(echo: EchoBackend, name = 'ns-web-80'): string {
  return JSON.stringify([{ name, endpoints: [{ address: echo.address, port: echo.port }], loadBalance: 'round_robin' }]);
}

export interface Answer { status: number; location: string | undefined; body: string }

/** One GET with this Host on a new connection (so both workers answer over a few calls); over TLS with SNI when `tls`. */
export async function getOnce(port: number, host: string, path: string, tls = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path, headers: { host }, agent: false, servername: host.split(':')[0], rejectUnauthorized: false };
    const req = (tls ? httpsRequest : httpRequest)(options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

/** POSTs a raw body to /configuration/backends; returns status and text. */
export async function postRaw(statusUrl: string, body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${statusUrl}/configuration/backends`, { method: 'POST', body });
  return { status: res.status, text: await res.text() };
}

export interface WorkerStatus {
  readonly version: number;
  readonly workers: Record<string, number>;
}

export async function getStatus(statusUrl: string): Promise<WorkerStatus> {
  const res = await fetch(`${statusUrl}/configuration/status`);
  assert.equal(res.status, 200);
  return (await res.json()) as WorkerStatus;
}

/** Waits until every current worker reports the store version; returns the ms it took. */
export async function waitAllWorkersApplied(fixture: LuaNginx, timeoutMs = 2000): Promise<number> {
  const started = performance.now();
  const pids = fixture.nginx.workerPids().map(String);
  for (;;) {
    const status = await getStatus(fixture.statusUrl);
    if (pids.every((pid) => status.workers[pid] === status.version)) return performance.now() - started;
    if (performance.now() - started > timeoutMs) {
      assert.fail(`workers did not apply version ${status.version}: ${JSON.stringify(status.workers)} (pids ${pids.join(',')})`);
    }
    await sleep(2);
  }
}

/** `count` sequential answers of `answer`: { body or status: hits }. */
async function countAnswers(count: number, answer: () => Promise<{ status: number; body: string }>): Promise<Record<string, number>> {
  const hits: Record<string, number> = {};
  for (let i = 0; i < count; i++) {
    const res = await answer();
    const key = res.status === 200 ? res.body : `status ${res.status}`;
    hits[key] = (hits[key] ?? 0) + 1;
  }
  return hits;
}

/** Sends `count` sequential GETs for `backend`; returns { body or status: hits }. */
export function tally(fixture: LuaNginx, backend: string, count: number): Promise<Record<string, number>> {
  return countAnswers(count, async () => {
    const res = await fetch(`${fixture.proxyUrl}/`, { headers: { 'x-backend': backend } });
    return { status: res.status, body: await res.text() };
  });
}

/** One GET for `backend` through the proxy on a new connection, so either worker may answer. */
export function getFresh(fixture: LuaNginx, backend: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(fixture.proxyUrl);
    const req = httpRequest({ host: url.hostname, port: url.port, path: '/', headers: { 'x-backend': backend }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

/** As tally, each request on a new connection (getFresh). */
export function tallyFresh(fixture: LuaNginx, backend: string, count: number): Promise<Record<string, number>> {
  return countAnswers(count, () => getFresh(fixture, backend));
}

const SERIOUS = /\[(error|alert|crit|emerg)\]/;

/** Every test ends with this: no [error]/[alert]/[crit]/[emerg] in its part of error.log except `allowed`. */
export function assertCleanErrorLog(fixture: LuaNginx, allowed: readonly RegExp[] = []): void {
  const log = fixture.nginx.errorLog();
  const fresh = log.slice(fixture.logChecked);
  fixture.logChecked = log.length;
  const unexpected = fresh.split('\n').filter((line) => SERIOUS.test(line) && !allowed.some((re) => re.test(line)));
  assert.deepEqual(unexpected, [], 'error.log has serious lines');
}
