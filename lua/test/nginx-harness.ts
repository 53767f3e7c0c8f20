// Starts a real, unprivileged NGINX from the data-plane runtime in a temp
// prefix (everything it writes stays inside), for tests of lua/ and of the
// controller's NGINX clients. Reusable: pass the http{} body you need, or use
// contractHttpBlock() for the NGINX ⇄ Lua contract of docs/CONTRACTS.md.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { findDataplane, type Dataplane } from '../../controller/src/nginx/dataplane.ts';

export interface StartNginxOptions {
  /** Body of the http{} block (after the harness's own temp/log paths), or a function of NGINX's prefix giving it. */
  readonly http: string | ((prefix: string) => string);
  /** Body of a stream{} block; set, the runtime's stream module is loaded too. */
  readonly stream?: string;
  /** A port that answers `GET /healthz` once NGINX is up. */
  readonly readyPort: number;
  readonly workers?: number;
  readonly dataplane?: Dataplane;
  /** Run master and workers as this uid/gid (e.g. 65534 to prove NGINX needs no privilege). */
  readonly user?: { readonly uid: number; readonly gid: number };
}

export interface RunningNginx {
  readonly prefix: string;
  readonly masterPid: number;
  /** Current worker PIDs (children of the master). */
  workerPids(): number[];
  errorLog(): string;
  /** Lines of error.log at [error] or worse: every test asserts this is empty. */
  seriousLogLines(): string[];
  /** Stops NGINX (TERM, then KILL) and removes the prefix unless keepPrefix. */
  stop(keepPrefix?: boolean): Promise<void>;
}

const SERIOUS = /\[(error|alert|crit|emerg)\]/;

export { freePort } from '../../e2e/harness/network.ts';

/** The ssl-redirect answer: status code and "" or ":<https-port>". */
export interface RedirectAnswer { readonly code: number; readonly portSuffix: string }

/**
 * The named location server.njk renders in a server with a location that has ssl-redirect and
 * rewrite-target (route flag "e"): where its `error_page 500` goes when the balancer ends a try to redirect.
 */
export function unbalancedLocation(redirect: RedirectAnswer): string {
  return `
      location @resty_unbalanced_https {
        content_by_lua_block { require("resty_ingress.unbalanced").answer(${redirect.code}, "${redirect.portSuffix}") }
      }`;
}

/**
 * The contract's http-level Lua wiring (the one balancer upstream), a status server on statusPort,
 * the fallback servers (unix sockets in NGINX's prefix; the redirect one answers `redirect`; without
 * `redirect`, init gets no redirect peer, as with no HTTPS listener) and `servers` verbatim.
 */
export function contractHttpBlock(
  dataplane: Dataplane, statusPort: number, servers: string, redirect: RedirectAnswer | null = { code: 308, portSuffix: '' },
): (prefix: string) => string {
  return (prefix) => `
    lua_package_path "${dataplane.luaPackagePath}";
    lua_package_cpath "${dataplane.luaPackageCPath}";
    lua_shared_dict resty_backends 64m;
    lua_shared_dict resty_certificates 32m;   # as http.njk
    lua_shared_dict resty_credentials 16m;
    lua_shared_dict resty_auth_nonces 4m;
    init_by_lua_block { require("resty_ingress.init").init({ unavailable = "unix:${prefix}/sockets/unavailable.sock"${redirect ? `, https_redirect = "unix:${prefix}/sockets/https-redirect.sock"` : ''} }) }
    init_worker_by_lua_block { require("resty_ingress.worker").init_worker() }
    # The redirect fallback answers for the Host it is sent.
    proxy_set_header Host $host;
    upstream upstream_balancer {
        server 0.0.0.1;
        balancer_by_lua_block { resty_ingress.balance() }
        keepalive 32;
    }
    server {
        listen 127.0.0.1:${statusPort};
        location /configuration {
            client_max_body_size 21m; client_body_buffer_size 21m;
            content_by_lua_block { require("resty_ingress.configuration").call() }
        }
        location = /healthz { return 200 "ok"; }
    }
    # As http.njk: the sockets' directory, NGINX's workers' only, is the servers' body temp directory.
    server { listen unix:${prefix}/sockets/unavailable.sock; client_body_temp_path ${prefix}/sockets; return 503; }
    ${redirect ? `server { listen unix:${prefix}/sockets/https-redirect.sock; client_body_temp_path ${prefix}/sockets; return ${redirect.code} https://$host${redirect.portSuffix}$request_uri; }` : ''}
    ${servers}`;
}

function childPids(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent PID; the command name (field 2) may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids.sort((a, b) => a - b);
}

async function waitReady(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${output()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(25);
  }
  throw new Error(`nginx did not answer on ${port} within 10 s: ${output()}`);
}

/** Writes nginx.conf into a fresh temp prefix, runs `nginx -t`, starts the master in the foreground. */
export async function startNginx(opts: StartNginxOptions): Promise<RunningNginx> {
  const dataplane = opts.dataplane ?? findDataplane();
  const prefix = mkdtempSync(join(tmpdir(), 'resty-nginx-'));
  // mkdtemp makes it 0700; run as root, the workers (nobody) must reach the fallback sockets inside.
  chmodSync(prefix, 0o755);
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(conf, `
${[...dataplane.modules, ...(opts.stream === undefined ? [] : [dataplane.streamModule])].map((m) => `load_module ${m};`).join('\n')}
daemon off;
master_process on;
worker_processes ${opts.workers ?? 2};
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log info;
events { worker_connections 1024; }
http {
    access_log ${prefix}/access.log;
    client_body_temp_path ${prefix}/client_body;
    proxy_temp_path ${prefix}/proxy;
    fastcgi_temp_path ${prefix}/fastcgi;
    uwsgi_temp_path ${prefix}/uwsgi;
    scgi_temp_path ${prefix}/scgi;
    ${typeof opts.http === 'string' ? opts.http : opts.http(prefix)}
}
${opts.stream === undefined ? '' : `stream {\n${opts.stream}\n}`}
`);
  const user = opts.user;
  if (user) chownSync(prefix, user.uid, user.gid);
  const [cmd, ...args] = dataplane.command;
  const argv = [...args, '-p', prefix, '-c', conf, '-e', `${prefix}/error.log`];
  const ids = user ? { uid: user.uid, gid: user.gid } : {};
  await promisify(execFile)(cmd, [...argv, '-t', '-q'], ids).catch((err: Error & { stderr?: string }) => {
    rmSync(prefix, { recursive: true, force: true });
    throw new Error(`nginx -t failed: ${err.stderr ?? err.message}`);
  });
  let output = '';
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], ...ids });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const errorLog = (): string => {
    try {
      return readFileSync(join(prefix, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  };
  const stop = async (keepPrefix = false): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killed = await Promise.race([exited.then(() => true), sleep(5000, false, { ref: false })]);
      if (!killed) child.kill('SIGKILL');
      await exited;
    }
    if (!keepPrefix) rmSync(prefix, { recursive: true, force: true });
  };
  try {
    await waitReady(opts.readyPort, child, () => output + errorLog());
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    prefix,
    masterPid: child.pid ?? 0,
    workerPids: () => childPids(child.pid ?? 0),
    errorLog,
    seriousLogLines: () => errorLog().split('\n').filter((line) => SERIOUS.test(line)),
    stop,
  };
}
