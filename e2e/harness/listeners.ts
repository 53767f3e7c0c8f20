// Probes for listeners that exist only once other parts of the controller
// land (HTTPS, /metrics): the harness reports a URL only when something
// answers there, so tests and the playground never print a dead address.
import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';

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
