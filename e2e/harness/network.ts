// Ports, loopback ranges and listener probes. Free ports are random picks
// below the kernel's ephemeral range (see freePort) and each cluster's pods get their own random
// 127.X.Y.0/24, so test files running in parallel do not collide. Listeners
// that exist only once other parts land (HTTPS, /metrics) are probed, so
// tests and the playground never print a dead address.
import { connect, createServer } from 'node:net';
import { randomInt } from 'node:crypto';
import { request as httpRequest } from 'node:http';

/**
 * Ports handed out for a later bind (NGINX, kubectl port-forward, a controller)
 * come from 20000–32767, below the kernel's ephemeral range (32768–60999 by
 * default): a port the kernel picked and we released can be picked again at
 * once by any listen(0) or outgoing connection of a test running beside us,
 * and NGINX's later bind then fails. Below that range only another random
 * pick can collide, and within this process none does (handed-out ports are
 * remembered).
 */
const PICK_LOW = 20_000;
const PICK_HIGH = 32_767;
const handedOut = new Set<number>();

/** A TCP port that was free on `host` a moment ago, never handed out before by this process. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = randomInt(PICK_LOW, PICK_HIGH + 1);
    if (handedOut.has(port) || !(await isPortFree(port, host))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port on ${host} in ${PICK_LOW}–${PICK_HIGH} after 200 tries`);
}

/** `count` distinct free ports. */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) ports.push(await freePort(host));
  return ports;
}

/**
 * A random loopback /24 for one cluster's pods: 127.64.0.0–127.127.255.0,
 * i.e. 16,384 ranges, outside 127.0.x.x where the simulator's default and
 * fixed test ranges live. Two files running at once collide with odds 1/16,384.
 */
export function randomLoopbackPool(): string {
  return `127.${64 + randomInt(64)}.${randomInt(256)}.0/24`;
}

/** True when nothing listens on host:port right now (a listen there succeeds). */
export async function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  const server = createServer();
  const free = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, host, () => resolve(true));
  });
  if (free) await new Promise<void>((resolve) => server.close(() => resolve()));
  return free;
}

/** True when a TCP connection to host:port is accepted within `timeoutMs`. */
export function probeTcp(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean): void => { socket.destroy(); resolve(ok); };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** NGINX's HTTPS listener: present when its port accepts connections. */
export function probeHttps(host: string, port: number): Promise<boolean> {
  return probeTcp(host, port);
}

/** The controller's metrics endpoint: present when it answers 200. */
export function probeMetrics(url: string, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', () => resolve(false));
    req.end();
  });
}
