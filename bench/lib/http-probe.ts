// One HTTP GET with an explicit Host header (fetch may not set Host), used to
// probe routes through NGINX. Never throws: a failure is status 0.
import { request } from 'node:http';

export interface ProbeResult {
  /** HTTP status, or 0 when the connection failed or timed out. */
  readonly status: number;
  readonly body: string;
}

/** GETs http://<address>:<port><path> with `Host: host`; resolves with status 0 on any network error. */
export function probe(address: string, port: number, host: string, path = '/', timeoutMs = 2000, headers: Readonly<Record<string, string>> = {}): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const req = request({ host: address, port, path, method: 'GET', headers: { ...headers, host }, agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end();
  });
}
