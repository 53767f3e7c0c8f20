// Benchmark: TCP services. The stream {} context as the controller renders it
// (njs picks each connection's peer from the endpoints fed through the feed
// socket, docs/tcp-udp-services.md) against a native `upstream {}` of the same
// endpoints, each NGINX with one worker, in the same run:
//
// - connections per core-second: proxied connections (connect, 1 byte each
//   way, close) ÷ the worker's CPU seconds, rounds alternating the two sides;
// - propagation: from "the set changes" until a new connection reaches the new
//   endpoint: njs = one feed request; native = write nginx.conf, `nginx -t`, HUP;
// - a peer that dies before its endpoint is removed (a crash, not a rolling
//   deploy): failed connections while it is still in the set (native retries
//   another peer through proxy_next_upstream; njs cannot retry, it skips the
//   peer for 10 s after one failure).
import { writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import type { DynamicStream, StreamService } from '../../controller/src/model/types.ts';
import { feedStreams } from '../../controller/src/nginx/stream-feed.ts';
import { renderConfig } from '../../controller/src/render/render-config.ts';
import { streamFeedSocketPath } from '../../controller/src/render/render-options.ts';
import { goldenOptions, model } from '../../controller/src/render/testdata/model-fixtures.ts';
import { byProfile, type BenchContext, type Benchmark, type Profile } from '../lib/context.ts';
import { cpuTimeNs, startNginxInstance, testConfig, type NginxInstance } from '../lib/nginx-instance.ts';
import { freePort } from '../lib/ports.ts';
import { metric, type BenchResult } from '../lib/report.ts';
import { median, percentile } from '../lib/stats.ts';

interface StreamParams {
  readonly connections: number;
  readonly rounds: number;
  readonly changes: number;
  readonly concurrency: number;
}

const PARAMS: Record<Profile, StreamParams> = {
  full: { connections: 8000, rounds: 3, changes: 40, concurrency: 16 },
  quick: { connections: 3000, rounds: 2, changes: 15, concurrency: 16 },
  smoke: { connections: 300, rounds: 1, changes: 3, concurrency: 8 },
};

interface Peer { readonly server: Server; readonly name: string; readonly port: number }

async function peer(name: string): Promise<Peer> {
  const server = createServer((socket) => {
    socket.once('data', () => socket.end(name));
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, name, port: (server.address() as AddressInfo).port };
}

/** One proxied connection: connect, a byte, the peer's name, close ('' = failed). */
function once(port: number): Promise<string> {
  return new Promise((done) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write('x'));
    socket.setTimeout(3000, () => socket.destroy());
    socket.on('data', (chunk) => { answer += chunk.toString(); });
    socket.on('close', () => done(answer));
    socket.on('error', () => undefined);
  });
}

interface Side {
  readonly label: string;
  readonly nginx: NginxInstance;
  readonly port: number;
  /** Makes `peers` the listener's set; resolves once NGINX took it (fed, or reloaded and signalled). */
  change(peers: readonly Peer[]): Promise<void>;
}

function service(port: number, peers: readonly Peer[]): StreamService {
  return { port, protocol: 'TCP', namespace: 'bench', service: 'tcp', servicePort: 80, proxyProtocol: { decode: false, encode: false },
    endpoints: peers.map((p) => ({ address: '127.0.0.1', port: p.port })) };
}

async function startNjs(ctx: BenchContext, peers: readonly Peer[]): Promise<Side> {
  const prefix = join(ctx.workDir, 'njs');
  const [port, httpPort, statusPort] = [await freePort(), await freePort(), await freePort()];
  const { conf } = renderConfig({ ...model([], []), streams: [service(port, peers)] },
    { ...goldenOptions(ctx.dataplane, prefix), httpsPort: undefined, httpPort, statusPort, workerProcesses: 1 });
  const nginx = await startNginxInstance({ dataplane: ctx.dataplane, prefix, conf, readyUrl: `http://127.0.0.1:${statusPort}/healthz`, cpu: ctx.serverCpu });
  let version = 0;
  const change = async (next: readonly Peer[]): Promise<void> => {
    const { protocol, endpoints } = service(port, next);
    const streams: DynamicStream[] = [{ protocol, port, endpoints }];
    await feedStreams(streamFeedSocketPath(prefix), ++version, streams);
  };
  await change(peers);
  return { label: 'njs', nginx, port, change };
}

async function startNative(ctx: BenchContext, peers: readonly Peer[]): Promise<Side> {
  const prefix = join(ctx.workDir, 'native');
  const [port, readyPort] = [await freePort(), await freePort()];
  const confOf = (next: readonly Peer[]): string => `load_module ${ctx.dataplane.streamModule};
daemon off; master_process on; worker_processes 1; pid ${prefix}/nginx.pid; error_log ${prefix}/error.log warn;
events { worker_connections 4096; }
http { access_log off; client_body_temp_path ${prefix}/tmp; proxy_temp_path ${prefix}/tmp; fastcgi_temp_path ${prefix}/tmp; uwsgi_temp_path ${prefix}/tmp; scgi_temp_path ${prefix}/tmp;
  server { listen 127.0.0.1:${readyPort}; location / { return 200; } } }
stream { upstream svc { ${next.map((p) => `server 127.0.0.1:${p.port};`).join(' ')} }
  server { listen 127.0.0.1:${port}; proxy_timeout 600s; proxy_next_upstream on; proxy_next_upstream_tries 3; proxy_pass svc; } }
`;
  const nginx = await startNginxInstance({ dataplane: ctx.dataplane, prefix, conf: confOf(peers), readyUrl: `http://127.0.0.1:${readyPort}/`, cpu: ctx.serverCpu });
  const change = async (next: readonly Peer[]): Promise<void> => {
    const confPath = join(prefix, 'nginx.conf');
    writeFileSync(confPath, confOf(next));
    await testConfig(ctx.dataplane, prefix, confPath);
    process.kill(nginx.masterPid, 'SIGHUP');
  };
  return { label: 'native', nginx, port, change };
}

/** `count` connections, `concurrency` at a time; the worker's CPU seconds and the failures. */
async function drive(side: Side, count: number, concurrency: number): Promise<{ cpuSeconds: number; failed: number }> {
  const workers = side.nginx.workerPids();
  const cpu = (): number => workers.reduce((sum, pid) => sum + cpuTimeNs(pid), 0);
  const before = cpu();
  let left = count;
  let failed = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (left-- > 0) if ((await once(side.port)) === '') failed++;
  }));
  return { cpuSeconds: (cpu() - before) / 1e9, failed };
}

/** ms from each change until a new connection reaches its one peer. */
async function propagation(side: Side, targets: readonly Peer[], changes: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < changes; i++) {
    const target = targets[i % targets.length] as Peer;
    const started = performance.now();
    await side.change([target]);
    const deadline = started + 10_000;
    while ((await once(side.port)) !== target.name && performance.now() < deadline) { /* until the new set serves */ }
    times.push(performance.now() - started);
  }
  return times;
}

/** Failed connections while one of three peers is closed but still in the set (200 connections). */
async function crashFailures(side: Side, peers: readonly Peer[]): Promise<number> {
  const doomed = await peer('doomed');
  await side.change([...peers, doomed]);
  await new Promise((done) => setTimeout(done, 300)); // native: the new workers run
  await new Promise<void>((done) => doomed.server.close(() => done()));
  let failed = 0;
  for (let i = 0; i < 200; i++) if ((await once(side.port)) === '') failed++;
  return failed;
}

export const streamBenchmark: Benchmark = {
  id: 'stream',
  title: 'TCP services: njs in stream {} vs a native upstream {}',
  async run(ctx: BenchContext): Promise<BenchResult> {
    const params = byProfile(ctx, PARAMS);
    const peers = await Promise.all(['a', 'b', 'c', 'd'].map((name) => peer(name)));
    const movers = await Promise.all(['m0', 'm1'].map((name) => peer(name)));
    const started: Side[] = [];
    try {
      started.push(await startNjs(ctx, peers), await startNative(ctx, peers));
      const sides = started as [Side, Side];
      const perCore: Record<string, number[]> = { njs: [], native: [] };
      let failed = 0;
      for (const side of sides) await drive(side, Math.min(500, params.connections), params.concurrency); // warm-up
      for (let round = 0; round < params.rounds; round++) {
        for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
          ctx.log(`round ${round + 1}/${params.rounds}: ${side.label}, ${params.connections} connections`);
          const result = await drive(side, params.connections, params.concurrency);
          failed += result.failed;
          perCore[side.label]?.push(params.connections / result.cpuSeconds);
        }
      }
      const [njs, native] = sides;
      const njsWorkers = njs.nginx.workerPids().join(',');
      const njsTimes = await propagation(njs, movers, params.changes);
      // A reload would have replaced the worker.
      const njsReloaded = njs.nginx.workerPids().join(',') !== njsWorkers;
      const nativeTimes = await propagation(native, movers, Math.max(2, Math.ceil(params.changes / 3)));
      const crash = { njs: await crashFailures(njs, peers), native: await crashFailures(native, peers) };
      const njsPerCore = median(perCore.njs ?? []);
      const nativePerCore = median(perCore.native ?? []);
      return {
        id: 'stream',
        title: this.title,
        metrics: [
          metric('TCP connections per core-second, one worker (median of rounds)', 'conn/core-s', Math.round(njsPerCore), Math.round(nativePerCore), 'native upstream {}'),
          metric('endpoint change → new connections use the new set, p99', 'ms', percentile(njsTimes, 99), percentile(nativeTimes, 99), 'native: nginx -t + reload',
            { on: 'value', op: '<', target: 100 }),
          metric('endpoint change → new set, p50', 'ms', median(njsTimes), median(nativeTimes), 'native: nginx -t + reload'),
          metric(`NGINX reloaded during the ${params.changes} njs endpoint changes`, 'yes=1', njsReloaded ? 1 : 0, 1, 'native: one reload per change',
            { on: 'value', op: '==', target: 0 }),
          metric('failed connections of the rounds', 'connections', failed, 0, 'none', { on: 'value', op: '==', target: 0 }),
          metric('failed connections, a peer closed while still in the set (200 connections)', 'connections', crash.njs, crash.native, 'native (retries another peer)'),
        ],
        notes: [
          `${params.rounds} round(s) of ${params.connections} connections per side (connect, 1 byte each way, close), ${params.concurrency} at a time from this process`,
          'connections per core-second = connections ÷ the worker\'s CPU seconds (schedstat); njs runs js_set on each connection and a js_set at its end (counters, failed peers)',
          `njs per-core rounds ${(perCore.njs ?? []).map(Math.round).join(', ')}; native ${(perCore.native ?? []).map(Math.round).join(', ')}`,
          'the crash row: njs cannot retry a failed connect (proxy_pass $peer is one peer) and skips the peer for 10 s; the native upstream retries another peer',
        ],
        distributions: [],
        raw: { perCore, njsTimes, nativeTimes, crash },
      };
    } finally {
      for (const side of started) await side.nginx.stop();
      for (const p of [...peers, ...movers]) p.server.close();
    }
  },
};
