// Upstream servers that are never the bottleneck: a plain NGINX (no Lua) with
// one `return 200` server per loopback address, keepalive on. Benchmarks
// proxy to these so that the proxy's cost is what they measure.
import { join } from 'node:path';
import type { Dataplane } from '../../controller/src/nginx/dataplane.ts';
import { startNginxInstance, type NginxInstance } from './nginx-instance.ts';

export interface Backends {
  readonly addresses: readonly string[];
  readonly port: number;
  readonly nginx: NginxInstance;
}

/** `count` loopback addresses 127.<b>.<c>.<d> starting at `firstAddress`. */
export function loopbackAddresses(firstAddress: string, count: number): string[] {
  const parts = firstAddress.split('.').map(Number);
  if (parts.length !== 4 || parts[0] !== 127 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) {
    throw new Error(`not a loopback IPv4 address: ${firstAddress}`);
  }
  const base = ((parts[1] ?? 0) << 16) + ((parts[2] ?? 0) << 8) + (parts[3] ?? 0);
  return Array.from({ length: count }, (_, i) => {
    const n = base + i;
    return `127.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  });
}

/** The backends' nginx.conf: one worker, access log off, one server per address. */
export function backendsConf(prefix: string, addresses: readonly string[], port: number): string {
  const servers = addresses.map((a) => `    server { listen ${a}:${port}; location / { return 200 "ok\\n"; } }`).join('\n');
  return `daemon off;
master_process on;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 16384; }
http {
    access_log off;
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    client_body_temp_path ${prefix}/client_body;
    proxy_temp_path ${prefix}/proxy;
    fastcgi_temp_path ${prefix}/fastcgi;
    uwsgi_temp_path ${prefix}/uwsgi;
    scgi_temp_path ${prefix}/scgi;
${servers}
}
`;
}

/** Starts the backends NGINX pinned to `cpu`. */
export async function startBackends(dataplane: Dataplane, dir: string, addresses: readonly string[], port: number, cpu: number | null): Promise<Backends> {
  const prefix = join(dir, 'backends');
  const first = addresses[0];
  if (first === undefined) throw new Error('startBackends: no addresses');
  const nginx = await startNginxInstance({
    dataplane, prefix, conf: backendsConf(prefix, addresses, port), readyUrl: `http://${first}:${port}/`, cpu,
  });
  return { addresses, port, nginx };
}
