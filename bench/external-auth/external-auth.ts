// Benchmark: the latency external auth adds. External auth is a subrequest
// (auth_request to the auth-url), so issue 26 prices it in latency, not in
// instructions: our rendered NGINX (the proxy benchmark's fixture, its
// plain route `/` as is) with a second Ingress on the same host, path
// /protected, the same annotations plus auth-url to a local auth service (a
// plain NGINX answering 200, on the load CPU with the backends). One
// keep-alive client connection sends requests to the two routes in turn
// (which goes first alternates per pair), so the machine's load falls on
// both alike and only the subrequest differs; it opens a connection to the
// auth service each time, as ingress-nginx's default (no auth-keepalive).
// The fixture's api path is a regex, so every location of the host is one
// (as ingress-nginx renders it): the plain route's request also passes the
// two /protected regexes first, a cost of well under a microsecond.
// The auth service's stub_status proves it served one subrequest per
// protected request. Rows: added-latency.ts.
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import type { V1Ingress } from '@kubernetes/client-node';
import { loopbackAddresses, startBackends } from '../lib/backends.ts';
import { byProfile, type BenchContext, type Benchmark, type Profile } from '../lib/context.ts';
import { startNginxInstance, type NginxInstance } from '../lib/nginx-instance.ts';
import { freePort } from '../lib/ports.ts';
import type { BenchResult } from '../lib/report.ts';
import { BENCH_HOST, buildProxyModel } from '../proxy/proxy-model.ts';
import { startSide } from '../proxy/proxy-side.ts';
import { addedLatencyRows, authDistributions, type AuthLatencySamples } from './added-latency.ts';

interface AuthParams {
  /** Pairs sent first and thrown away (connections, JIT, caches). */
  readonly warmupPairs: number;
  /** Measured pairs: one plain and one protected request each. */
  readonly pairs: number;
}

const PARAMS: Record<Profile, AuthParams> = {
  full: { warmupPairs: 500, pairs: 5000 },
  quick: { warmupPairs: 200, pairs: 1000 },
  // A few dozen requests: the shape of the rows, not a figure (the rows' logic has unit tests).
  smoke: { warmupPairs: 5, pairs: 25 },
};

const FIRST_ADDRESS = '127.0.93.1';
export const PROTECTED_PATH = '/protected';
const AUTH_PATH = '/auth';
const REQUEST_TIMEOUT_MS = 5000;

/** The auth service: 200 on its auth path, its request count on /status. */
function authServiceConf(prefix: string, address: string, port: number): string {
  return `daemon off;
master_process on;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path ${prefix}/client_body;
    proxy_temp_path ${prefix}/proxy;
    fastcgi_temp_path ${prefix}/fastcgi;
    uwsgi_temp_path ${prefix}/uwsgi;
    scgi_temp_path ${prefix}/scgi;
    server {
        listen ${address}:${port};
        location = ${AUTH_PATH} { return 200; }
        location = /status { stub_status; }
        location / { return 404; }
    }
}
`;
}

/** The requests count of a stub_status page (the third number under "server accepts handled requests"), or null. */
export function stubStatusRequests(text: string): number | null {
  const counts = /server accepts handled requests\s*\n\s*(\d+)\s+(\d+)\s+(\d+)\s*\n/u.exec(text);
  return counts === null ? null : Number(counts[3]);
}

/** Requests the auth service has served, the one asking included. */
async function servedRequests(address: string, port: number): Promise<number | null> {
  try {
    return stubStatusRequests(await (await fetch(`http://${address}:${port}/status`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })).text());
  } catch {
    return null;
  }
}

/** The fixture's `app` Ingress again on PROTECTED_PATH, with auth-url to the auth service. */
export function protectedIngress(authUrl: string): (app: V1Ingress) => V1Ingress[] {
  return (app) => {
    const path = app.spec?.rules?.[0]?.http?.paths[0];
    if (path === undefined) throw new Error('external-auth bench: the fixture\'s app Ingress has no path');
    return [{
      ...app,
      metadata: { ...app.metadata, name: 'app-protected', annotations: { ...app.metadata?.annotations, 'nginx.ingress.kubernetes.io/auth-url': authUrl } },
      spec: { ...app.spec, rules: [{ host: BENCH_HOST, http: { paths: [{ ...path, path: PROTECTED_PATH }] } }] },
    }];
  };
}

/** One GET through `agent`; ms from writing it to reading the whole answer, or null unless 200. */
function timedGet(port: number, path: string, agent: Agent): Promise<number | null> {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const req = request({ host: '127.0.0.1', port, path, headers: { host: BENCH_HOST }, agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? Number(process.hrtime.bigint() - started) / 1e6 : null));
      res.on('error', () => resolve(null));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(null));
    req.end();
  });
}

/** `pairs` interleaved pairs; which route goes first alternates. */
async function interleaved(port: number, agent: Agent, pairs: number): Promise<Omit<AuthLatencySamples, 'asked'>> {
  const plain: number[] = [];
  const auth: number[] = [];
  let failed = 0;
  const once = async (path: string, into: number[]): Promise<void> => {
    const ms = await timedGet(port, path, agent);
    if (ms === null) failed += 1;
    else into.push(ms);
  };
  for (let i = 0; i < pairs; i++) {
    const order: [string, number[]][] = [['/', plain], [`${PROTECTED_PATH}/x`, auth]];
    if (i % 2 === 1) order.reverse();
    for (const [path, into] of order) await once(path, into);
  }
  return { plain, auth, failed };
}

async function runExternalAuth(ctx: BenchContext): Promise<BenchResult> {
  const params = byProfile(ctx, PARAMS);
  const [appAddress, authAddress] = loopbackAddresses(FIRST_ADDRESS, 2) as [string, string];
  const port = await freePort();
  const started: NginxInstance[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    started.push((await startBackends(ctx.dataplane, ctx.workDir, [appAddress], port, ctx.loadCpu)).nginx);
    const authPrefix = join(ctx.workDir, 'auth-service');
    started.push(await startNginxInstance({
      dataplane: ctx.dataplane, prefix: authPrefix, conf: authServiceConf(authPrefix, authAddress, port), readyUrl: `http://${authAddress}:${port}${AUTH_PATH}`, cpu: ctx.loadCpu,
    }));
    const { model } = buildProxyModel([{ address: appAddress, port }], 'plain', protectedIngress(`http://${authAddress}:${port}${AUTH_PATH}`));
    const side = await startSide(ctx, model, 'ours', (conf) => conf, true);
    started.push(side.nginx);
    if (!side.conf.includes('auth_request ')) throw new Error('external-auth bench: the rendered conf has no auth_request');
    const warm = await interleaved(side.port, agent, params.warmupPairs);
    if (warm.failed > 0) throw new Error(`external-auth bench: ${warm.failed} warm-up requests not answered 200`);
    const before = await servedRequests(authAddress, port);
    const measured = await interleaved(side.port, agent, params.pairs);
    const after = await servedRequests(authAddress, port);
    // stub_status counts the request that reads it: `after`'s own.
    const samples: AuthLatencySamples = { ...measured, asked: before === null || after === null ? null : after - before - 1 };
    const { metrics, notes } = addedLatencyRows(samples);
    ctx.log(notes.join('; '));
    const micros = (values: readonly number[]): number[] => values.map((v) => Math.round(v * 1000));
    return {
      id: 'external-auth',
      title: 'External auth: latency the auth subrequest adds (plain and protected route interleaved on one NGINX)',
      metrics,
      notes: [...notes, `${params.warmupPairs} warm-up pairs first; NGINX worker on CPU ${ctx.serverCpu ?? 'unpinned'}, backend and auth service on ${ctx.loadCpu ?? 'unpinned'}; the client is the benchmark's own process (one keep-alive connection)`],
      distributions: authDistributions(samples),
      raw: { plainUs: micros(samples.plain), authUs: micros(samples.auth), failed: samples.failed, asked: samples.asked },
    };
  } finally {
    agent.destroy();
    for (const nginx of started.reverse()) await nginx.stop();
  }
}

export const externalAuthBenchmark: Benchmark = { id: 'external-auth', title: 'External auth latency', run: runExternalAuth };
