// TCP services: plain `upstream {}` + reload against njs in stream (js_set
// choosing the peer from a js_shared_dict_zone the controller feeds), the
// evaluation of docs/tcp-udp-services.md. Same run, one NGINX worker each:
//
// - connection cost: NGINX worker CPU (utime+stime from /proc) per proxied
//   connection (connect, 1 byte each way, close), and connections/s;
// - propagation: from "the set changes" to the first new connection reaching
//   the new endpoint: njs = one write to the feed port; upstream = write
//   nginx.conf, `nginx -t`, HUP, until the new workers serve.
//
// njs is not in scripts/dataplane-packages.txt: unpack it beside the runtime first:
//   apt-get download libnginx-mod-stream-js libxml2 liblzma5   (trixie, as scripts/setup-dataplane.ts does)
//   for d in *.deb; do dpkg -x $d /tmp/njs; done
//   NJS_ROOT=/tmp/njs node bench/tools/stream-balancing.ts [connections]   (default 5000)
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { findDataplane } from '../../controller/src/nginx/dataplane.ts';
import { libDir as multiarchLibDir } from '../../controller/src/nginx/multiarch.ts';
import { freePort } from '../../e2e/harness/network.ts';

const run = promisify(execFile);
const CONNECTIONS = Number(process.argv[2] ?? 5000);
const CONCURRENCY = 16;
const CHANGES = 30;

const PEERS_JS = `
let turn = 0;
function pick(s) {
  const set = ngx.shared.peers.get(s.variables.server_port);
  if (!set) return '127.0.0.1:1';
  const list = set.split(' ');
  turn = (turn + 1) % 1000000007;
  return list[turn % list.length];
}
function feed(s) {
  let buf = '';
  s.on('upload', function (data, flags) {
    buf += data;
    if (buf.endsWith('\\n\\n') || flags.last) {
      const lines = buf.split('\\n');
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i];
        if (line === '') continue;
        const space = line.indexOf(' ');
        ngx.shared.peers.set(line.slice(0, space), line.slice(space + 1));
      }
      s.done();
    }
  });
}
export default { pick, feed };
`;

interface Backend { readonly server: Server; readonly name: string; readonly address: string }

async function backend(name: string): Promise<Backend> {
  const server = createServer((socket) => {
    socket.on('data', () => { socket.end(name); });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, name, address: `127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** One proxied connection: connect, send a byte, read the backend's name, close. */
function once(port: number): Promise<string> {
  return new Promise((done, fail) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write('x'));
    socket.setTimeout(3000, () => socket.destroy(new Error('timeout')));
    socket.on('data', (chunk) => { answer += chunk.toString(); });
    socket.on('end', () => done(answer));
    socket.on('error', (error) => (answer === '' ? fail(error) : done(answer)));
  });
}

interface Nginx { readonly child: ChildProcess; readonly prefix: string; readonly conf: string; workerCpuMs(): Promise<number>; hup(): void; stop(): Promise<void> }

async function startNginx(conf: string, prefix: string, libraryPath: string): Promise<Nginx> {
  const dataplane = findDataplane();
  const [loader, , , nginx] = dataplane.command;
  const confPath = join(prefix, 'nginx.conf');
  writeFileSync(confPath, conf);
  const argv = ['--library-path', libraryPath, nginx ?? '', '-p', prefix, '-c', confPath];
  const child = spawn(loader ?? '', argv, { stdio: 'ignore' });
  await sleep(500);
  const master = Number(readFileSync(join(prefix, 'nginx.pid'), 'utf8'));
  const workerCpuMs = async (): Promise<number> => {
    const { stdout } = await run('ps', ['--ppid', String(master), '-o', 'pid=']);
    let ticks = 0;
    for (const pid of stdout.split('\n').map((line) => line.trim()).filter(Boolean)) {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return ticks * 10; // USER_HZ = 100
  };
  return {
    child, prefix, conf: confPath, workerCpuMs,
    hup: () => process.kill(master, 'SIGHUP'),
    stop: async () => { child.kill('SIGQUIT'); await new Promise((done) => child.once('exit', done)); },
  };
}

function mainConf(prefix: string, modules: readonly string[], stream: string): string {
  return `${modules.map((m) => `load_module ${m};`).join('\n')}
daemon off; master_process on; worker_processes 1;
pid ${prefix}/nginx.pid; error_log ${prefix}/error.log warn;
events { worker_connections 4096; }
stream {
${stream}
}
`;
}

async function measureConnections(port: number): Promise<string[]> {
  const seen: string[] = [];
  let left = CONNECTIONS;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (left-- > 0) seen.push(await once(port));
  }));
  return seen;
}

async function costOf(nginx: Nginx, port: number): Promise<{ cpuUsPerConnection: number; perSecond: number }> {
  await measureConnections(port); // warm-up
  const cpu0 = await nginx.workerCpuMs();
  const t0 = performance.now();
  await measureConnections(port);
  const wall = performance.now() - t0;
  const cpu = (await nginx.workerCpuMs()) - cpu0;
  return { cpuUsPerConnection: (cpu * 1000) / CONNECTIONS, perSecond: Math.round(CONNECTIONS / (wall / 1000)) };
}

async function until(port: number, name: string): Promise<void> {
  for (;;) {
    if ((await once(port).catch(() => '')) === name) return;
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function main(): Promise<void> {
  const njsRoot = process.env.NJS_ROOT;
  if (!njsRoot) throw new Error('set NJS_ROOT to the unpacked libnginx-mod-stream-js, libxml2 and liblzma5 (see the header)');
  const dataplane = findDataplane();
  const libDir = dataplane.command[2] ?? '';
  const libraryPath = `${libDir}:${njsRoot}/${multiarchLibDir()}`;
  const backends = await Promise.all(['a', 'b', 'c', 'd', 'n0', 'n1'].map((name) => backend(name)));
  const [a, b, c, d] = backends;
  if (!a || !b || !c || !d) throw new Error('backends');
  const results: Record<string, unknown> = {};

  // Plain upstream.
  {
    const prefix = mkdtempSync(join(tmpdir(), 'stream-upstream-'));
    const port = await freePort();
    const stream = (peers: readonly Backend[]): string =>
      `upstream svc { ${peers.map((peer) => `server ${peer.address};`).join(' ')} }\nserver { listen 127.0.0.1:${port}; proxy_pass svc; }`;
    const nginx = await startNginx(mainConf(prefix, [dataplane.streamModule], stream([a, b, c, d])), prefix, libraryPath);
    results.upstream = await costOf(nginx, port);
    const times: number[] = [];
    for (let i = 0; i < CHANGES / 3; i++) {
      const next = backends[4 + (i % 2)];
      if (!next) throw new Error('backend');
      const t0 = performance.now();
      writeFileSync(nginx.conf, mainConf(prefix, [dataplane.streamModule], stream([next])));
      await run(dataplane.command[0] ?? '', ['--library-path', libraryPath, dataplane.command[3] ?? '', '-p', prefix, '-c', nginx.conf, '-t', '-q']);
      nginx.hup();
      await until(port, next.name);
      times.push(performance.now() - t0);
    }
    results.upstreamPropagationMs = { p50: percentile(times, 50), p99: percentile(times, 99), n: times.length };
    await nginx.stop();
    rmSync(prefix, { recursive: true, force: true });
  }

  // njs: js_set picks from a shared dict the feed port writes.
  {
    const prefix = mkdtempSync(join(tmpdir(), 'stream-njs-'));
    writeFileSync(join(prefix, 'peers.js'), PEERS_JS);
    const [port, feedPort] = [await freePort(), await freePort()];
    const stream = `js_import peers from ${prefix}/peers.js;
js_shared_dict_zone zone=peers:1m type=string;
js_set $peer peers.pick;
server { listen 127.0.0.1:${port}; proxy_pass $peer; }
server { listen 127.0.0.1:${feedPort}; js_preread peers.feed; return "ok"; }`;
    const modules = [dataplane.streamModule, `${njsRoot}/usr/lib/nginx/modules/ngx_stream_js_module.so`];
    const nginx = await startNginx(mainConf(prefix, modules, stream), prefix, libraryPath);
    const feed = (peers: readonly Backend[]): Promise<void> => new Promise((done, fail) => {
      const socket = connect(feedPort, '127.0.0.1', () => socket.write(`${port} ${peers.map((peer) => peer.address).join(' ')}\n\n`));
      // NGINX answers "ok" and closes at once: the answer is the acknowledgement (a reset may follow it).
      let acknowledged = false;
      socket.on('data', () => { acknowledged = true; socket.destroy(); done(); });
      socket.on('close', () => { if (!acknowledged) fail(new Error('feed closed without an answer')); });
      socket.on('error', (error) => { if (!acknowledged) fail(error); });
    });
    await feed([a, b, c, d]).catch(async (error: unknown) => {
      console.error(readFileSync(join(prefix, 'error.log'), 'utf8').slice(-1500));
      await nginx.stop();
      throw error;
    });
    results.njs = await costOf(nginx, port);
    const times: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const next = backends[4 + (i % 2)];
      if (!next) throw new Error('backend');
      const t0 = performance.now();
      await feed([next]);
      await until(port, next.name);
      times.push(performance.now() - t0);
    }
    results.njsPropagationMs = { p50: percentile(times, 50), p99: percentile(times, 99), n: times.length };
    await nginx.stop();
    rmSync(prefix, { recursive: true, force: true });
  }
  for (const server of backends) server.server.close();
  console.log(JSON.stringify({ connections: CONNECTIONS, concurrency: CONCURRENCY, ...results }, null, 2));
}

await main();
