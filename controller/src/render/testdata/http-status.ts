// One GET through real NGINX in render tests, by node:http: fetch() cannot
// set Host, which picks the server. Any status resolves; the body is drained.
import { request } from 'node:http';

/** GET `path` on 127.0.0.1:`port` with Host `host`; resolves with the status. */
export function getStatus(port: number, host: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path, headers: { ...headers, host }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}
