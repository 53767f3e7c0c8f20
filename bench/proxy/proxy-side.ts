// One side of the proxy-path benchmark: an NGINX on our rendered conf (or a
// transform of it), as users run it (HTTPS listener on, so ssl-redirect is
// on), started with the backends, route policies and certificates the
// controller would push, and checked to proxy the measured host before
// anyone measures it; the backends every side proxies to. Also one wrk round
// against a side, or against two sides at once, with the worker CPU it cost.
import { join } from 'node:path';
import { dynamicBackends, dynamicCertificates } from '../../controller/src/diff/decide.ts';
import { getStatus, postBackends } from '../../controller/src/nginx/lua-client.ts';
import { getCertificates, postCertificates } from '../../controller/src/nginx/lua-certificates.ts';
import { postCredentials, postRoutes } from '../../controller/src/nginx/lua-routes.ts';
import { repoRoot } from '../../controller/src/nginx/dataplane.ts';
import type { Model } from '../../controller/src/model/types.ts';
import { createConfigRenderer, defaultCertificatePaths } from '../../controller/src/render/index.ts';
import { writeSelfSignedDefault } from '../../controller/src/tls/default-certificate.ts';
import { loopbackAddresses, startBackends, type Backends } from '../lib/backends.ts';
import type { BenchContext } from '../lib/context.ts';
import { probe } from '../lib/http-probe.ts';
import { cpuTimeNs, startNginxInstance, type NginxInstance } from '../lib/nginx-instance.ts';
import { freePort, freePorts, waitUntil } from '../lib/ports.ts';
import { runWrk, type WrkResult } from '../lib/wrk.ts';
import { BENCH_AUTHORIZATION, BENCH_HOST, buildProxyModel, SECURE_HOST } from './proxy-model.ts';
import { checksRedirect, type Peer } from './reference-conf.ts';

export interface StartedSide {
  readonly nginx: NginxInstance;
  readonly port: number;
  readonly conf: string;
}

export interface Round<Label extends string = string> {
  readonly side: Label;
  readonly wrk: WrkResult;
  readonly cpuUsPerRequest: number;
}

const APPLY_TIMEOUT_MS = 5000;

/** How many backends the proxied host has, on loopback addresses from FIRST_BACKEND. */
export const BACKEND_ADDRESSES = 4;
const FIRST_BACKEND = '127.0.91.1';

/**
 * The backends (plain NGINX answering 200, on the load CPU) on a free port,
 * as peers, and the model whose proxied host balances over them.
 */
export async function startProxyBackends(ctx: BenchContext): Promise<{ peers: Peer[]; model: Model; backends: Backends }> {
  const port = await freePort();
  const addresses = loopbackAddresses(FIRST_BACKEND, BACKEND_ADDRESSES);
  const peers = addresses.map((address) => ({ address, port }));
  const backends = await startBackends(ctx.dataplane, ctx.workDir, addresses, port, ctx.loadCpu);
  return { peers, model: buildProxyModel(peers).model, backends };
}

/** Pushes backends, route policies (after the backends they name) and certificates as the controller does; resolves once every worker uses them. */
async function pushDynamic(model: Model, statusUrl: string, port: number, conf: string): Promise<void> {
  await postBackends(statusUrl, dynamicBackends(model));
  // Backends and routes share one store version: a worker reporting it holds both.
  const version = await postRoutes(statusUrl, { routes: model.routes });
  await waitUntil('workers to apply the backends and routes', async () => {
    const applied = Object.values((await getStatus(statusUrl)).workers);
    return applied.length > 0 && applied.every((v) => v >= version) ? true : undefined;
  }, APPLY_TIMEOUT_MS, 5);
  // Basic/digest users: the request path reads them from the shared dict, no worker poll to wait for.
  if (model.credentials !== undefined) await postCredentials(statusUrl, { sets: model.credentials });
  const certificates = dynamicCertificates(model);
  const certificateVersion = await postCertificates(statusUrl, certificates);
  await waitUntil('the certificate store to hold the pushed version', async () => {
    const loaded = await getCertificates(statusUrl);
    return loaded.version >= certificateVersion ? true : undefined;
  }, APPLY_TIMEOUT_MS, 5);
  // Workers rebuild their host set on their next poll; the redirect of the secure host shows they did.
  // A side whose locations or balancer skip the redirect check cannot show it, and does not read the set either.
  if (Object.keys(certificates.hosts).includes(SECURE_HOST) && checksRedirect(conf, SECURE_HOST)) {
    await waitUntil(`plain HTTP to ${SECURE_HOST} to be redirected`, async () => {
      const { status } = await probe('127.0.0.1', port, SECURE_HOST);
      return status >= 300 && status < 400 ? true : undefined;
    }, APPLY_TIMEOUT_MS, 5);
  }
}

/**
 * Renders `model`, applies `transform` and starts NGINX in <workDir>/<name>.
 * `lua`: push backends, routes and certificates (our sides). Every side must
 * answer 200 for BENCH_HOST (proxied, not redirected) before it is returned.
 */
export async function startSide(ctx: BenchContext, model: Model, name: string, transform: (conf: string) => string, lua: boolean): Promise<StartedSide> {
  const prefix = join(ctx.workDir, name);
  const [port, httpsPort, statusPort] = await freePorts(3) as [number, number, number];
  writeSelfSignedDefault(defaultCertificatePaths(prefix));
  const renderer = createConfigRenderer({
    templateDir: join(repoRoot(), 'rootfs/etc/nginx/template'),
    prefix, listenAddress: '127.0.0.1', httpPort: port, httpsPort, statusPort, workerProcesses: 1, dataplane: ctx.dataplane,
  });
  const conf = transform(renderer.render(model).conf);
  const statusUrl = `http://127.0.0.1:${statusPort}`;
  const nginx = await startNginxInstance({ dataplane: ctx.dataplane, prefix, conf, readyUrl: `${statusUrl}/healthz`, cpu: ctx.serverCpu });
  try {
    if (lua) await pushDynamic(model, statusUrl, port, conf);
    const answer = await probe('127.0.0.1', port, BENCH_HOST, '/', 2000, model.credentials === undefined ? {} : { authorization: BENCH_AUTHORIZATION });
    if (answer.status !== 200) throw new Error(`${name}: ${BENCH_HOST} answered ${answer.status}, not 200 (proxied)`);
  } catch (err) {
    const log = nginx.errorLog().slice(-1000);
    await nginx.stop();
    throw new Error(`${(err as Error).message}; error.log: ${log}`, { cause: err });
  }
  return { nginx, port, conf };
}

/** Nanoseconds the side's workers have spent on a CPU. */
function workerCpuNs(side: StartedSide): number {
  return side.nginx.workerPids().reduce((sum, pid) => sum + cpuTimeNs(pid), 0);
}

function roundOf<Label extends string>(label: Label, wrk: WrkResult, usedNs: number): Round<Label> {
  return { side: label, wrk, cpuUsPerRequest: wrk.requests > 0 ? usedNs / 1000 / wrk.requests : Number.NaN };
}

/** One wrk run against BENCH_HOST; CPU per request from the workers' schedstat over the run. */
export async function measure<Label extends string>(ctx: BenchContext, label: Label, side: StartedSide, seconds: number, connections: number): Promise<Round<Label>> {
  const before = workerCpuNs(side);
  const wrk = await runWrk({ url: `http://127.0.0.1:${side.port}/`, hosts: [BENCH_HOST], durationSeconds: seconds, connections, cpu: ctx.loadCpu });
  return roundOf(label, wrk, workerCpuNs(side) - before);
}

/**
 * Both sides served at the same time, each by its own wrk with half the
 * connections: their workers share the server CPU over the same seconds, so
 * whatever the machine does meanwhile falls on both. CPU per request of each.
 */
export async function measureAtOnce<Label extends string>(ctx: BenchContext, sides: readonly [{ label: Label; side: StartedSide }, { label: Label; side: StartedSide }], seconds: number, connections: number): Promise<[Round<Label>, Round<Label>]> {
  const each = Math.max(1, Math.round(connections / 2));
  const before = sides.map(({ side }) => workerCpuNs(side));
  const runs = await Promise.all(sides.map(({ side }) => runWrk({ url: `http://127.0.0.1:${side.port}/`, hosts: [BENCH_HOST], durationSeconds: seconds, connections: each, cpu: ctx.loadCpu })));
  const [a, b] = sides;
  return [
    roundOf(a.label, runs[0] as WrkResult, workerCpuNs(a.side) - (before[0] ?? 0)),
    roundOf(b.label, runs[1] as WrkResult, workerCpuNs(b.side) - (before[1] ?? 0)),
  ];
}
