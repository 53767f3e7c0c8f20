// Whether NGINX will be able to listen on the ports of new TCP/UDP services.
// `nginx -t` does not bind, so a port held by another process, or below 1024
// without NET_BIND_SERVICE, would only fail at the reload, and then every
// later reload with it (HTTP changes of every tenant included). The
// controller runs as NGINX's user in NGINX's network namespace, so trying to
// bind the port itself answers the same question first. Only ports NGINX does
// not hold yet are probed (it holds the running ones: they would be in use).
//
// Synchronous on purpose (the build step is): one short child process, run
// only when the set of new ports changes, not per sync.
import { spawnSync } from 'node:child_process';
import type { StreamProtocol } from '../model/types.ts';

/** One listener to try: protocol and port on `address`. */
export interface StreamPort {
  readonly protocol: StreamProtocol;
  readonly port: number;
}

const PROBE = `
const net = require('node:net');
const dgram = require('node:dgram');
const [address, list] = [process.argv[1], JSON.parse(process.argv[2])];
const out = {};
let left = list.length;
const done = (key, code) => { out[key] = code; if (--left === 0) { process.stdout.write(JSON.stringify(out)); process.exit(0); } };
if (left === 0) { process.stdout.write('{}'); process.exit(0); }
for (const { protocol, port } of list) {
  const key = protocol + '/' + port;
  if (protocol === 'UDP') {
    const socket = dgram.createSocket(address.includes(':') ? 'udp6' : 'udp4');
    socket.once('error', (error) => done(key, error.code || 'ERROR'));
    socket.bind(port, address, () => socket.close(() => done(key, null)));
  } else {
    const server = net.createServer();
    server.once('error', (error) => done(key, error.code || 'ERROR'));
    server.listen({ port, host: address, exclusive: true }, () => server.close(() => done(key, null)));
  }
}
`;

/**
 * `<protocol>/<port>` → the error code of a failed bind (EADDRINUSE, EACCES, …) for every port
 * of `ports` that cannot be listened on at `address`; ports that can are absent.
 * A probe that itself fails reports nothing (NGINX's reload stays the judge).
 */
export function probeStreamPorts(address: string, ports: readonly StreamPort[], timeoutMs = 5000): Map<string, string> {
  const result = spawnSync(process.execPath, ['-e', PROBE, address, JSON.stringify(ports)], { encoding: 'utf8', timeout: timeoutMs });
  const failed = new Map<string, string>();
  if (result.status !== 0) return failed;
  try {
    for (const [key, code] of Object.entries(JSON.parse(result.stdout) as Record<string, string | null>)) {
      if (code !== null) failed.set(key, code);
    }
  } catch {
    // an unreadable answer: nothing known
  }
  return failed;
}
