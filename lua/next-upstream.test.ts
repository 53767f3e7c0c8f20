// proxy-next-upstream, -tries and -timeout with the Lua balancer, inside real
// NGINX: the location's proxy_next_upstream_tries bounds the tries the
// balancer asks for (tries 1 = the first try only), the conditions decide
// which failures are retried, and a retry goes to an endpoint not tried yet.
// Every try shows in $upstream_addr, which each location returns as a header.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { freePort } from './test/nginx-harness.ts';
import { assertCleanErrorLog, postRaw, startLuaNginx, waitAllWorkersApplied, type LuaNginx } from './test/lua-fixture.ts';

interface StatusBackend { readonly address: string; readonly port: number; hits: number; close(): Promise<void> }

/** A node:http backend on `address` answering every request with `status` and its address. */
async function statusBackend(address: string, status: number): Promise<StatusBackend> {
  const backend = { address, port: 0, hits: 0, close: (): Promise<void> => Promise.resolve() };
  const server: Server = createServer((req, res) => {
    backend.hits++;
    req.resume();
    req.on('end', () => { res.statusCode = status; res.end(`${status} from ${address}`); });
  });
  await new Promise<void>((done) => server.listen(0, address, done));
  backend.port = (server.address() as AddressInfo).port;
  backend.close = () => new Promise((done) => { server.closeAllConnections(); server.close(() => done()); });
  return backend;
}

/** One location per case, each with its own next-upstream directives, routed to the backend of the same name. */
interface Case { readonly name: string; readonly directives: string }

const CASES: readonly Case[] = [
  { name: 'tries-1', directives: 'proxy_next_upstream error timeout; proxy_next_upstream_tries 1;' },
  { name: 'tries-2', directives: 'proxy_next_upstream error timeout; proxy_next_upstream_tries 2;' },
  { name: 'tries-3', directives: 'proxy_next_upstream error timeout; proxy_next_upstream_tries 3;' },
  { name: 'tries-0', directives: 'proxy_next_upstream error timeout; proxy_next_upstream_tries 0;' },
  { name: 'tries-4', directives: 'proxy_next_upstream error timeout; proxy_next_upstream_tries 4;' },
  { name: 'plain-503', directives: 'proxy_next_upstream error timeout; proxy_next_upstream_tries 3;' },
  { name: 'retry-503', directives: 'proxy_next_upstream error timeout http_503; proxy_next_upstream_tries 3;' },
  { name: 'retry-503-post', directives: 'proxy_next_upstream error timeout http_503; proxy_next_upstream_tries 3;' },
  { name: 'off', directives: 'proxy_next_upstream off; proxy_next_upstream_tries 3;' },
];

function locations(port: number): string {
  const blocks = CASES.map((c) => `
      location /${c.name} {
        set $proxy_upstream_name "${c.name}";
        set $resty_route "- ${c.name} _ - - - /";
        proxy_connect_timeout 2s;
        ${c.directives}
        add_header X-Tries $upstream_addr always;
        proxy_pass http://upstream_balancer;
      }`).join('');
  return `
    server {
      listen 127.0.0.1:${port};
      ${blocks}
    }`;
}

/** The tries of one request: the peers in $upstream_addr ("a, b : c"). */
function triesOf(header: string | null): string[] {
  return (header ?? '').split(/, | : /).filter((peer) => peer !== '');
}

void describe('next upstream: tries and conditions with the Lua balancer', () => {
  let fixture: LuaNginx;
  let port: number;
  const backends: StatusBackend[] = [];
  const dead: { address: string; port: number }[] = [];

  before(async () => {
    port = await freePort();
    fixture = await startLuaNginx(locations(port));
    for (let i = 0; i < 4; i++) dead.push({ address: `127.0.4.${10 + i}`, port: await freePort() });
    const failing = await statusBackend('127.0.4.20', 503);
    const healthy = await statusBackend('127.0.4.21', 200);
    backends.push(failing, healthy);
    const at = (b: { address: string; port: number }): { address: string; port: number } => ({ address: b.address, port: b.port });
    const body = [
      ...['tries-1', 'tries-2', 'tries-3', 'tries-0', 'tries-4'].map((name) => ({ name, endpoints: dead.map(at), loadBalance: 'round_robin' })),
      ...['plain-503', 'retry-503', 'retry-503-post'].map((name) => ({ name, endpoints: [at(failing), at(healthy)], loadBalance: 'round_robin' })),
      { name: 'off', endpoints: dead.map(at), loadBalance: 'round_robin' },
    ];
    const res = await postRaw(fixture.statusUrl, JSON.stringify(body));
    assert.equal(res.status, 201, res.text);
    await waitAllWorkersApplied(fixture);
  });
  after(async () => {
    await fixture?.nginx.stop();
    await Promise.all(backends.map((b) => b.close()));
  });

  const refused = [/connect\(\) failed \(111: Connection refused\) while connecting to upstream/];

  const triesRows = [
    { name: 'tries 1: the first try only, no retry', path: '/tries-1', tries: 1 },
    { name: 'tries 2: one retry', path: '/tries-2', tries: 2 },
    { name: 'tries 3 (the default): two retries of four failing endpoints', path: '/tries-3', tries: 3 },
    { name: 'tries 0 (no limit): every endpoint once', path: '/tries-0', tries: 4 },
    { name: 'tries 4: above the old cap of 3 in Lua, every one of four endpoints', path: '/tries-4', tries: 4 },
    { name: 'off: no retry whatever the tries', path: '/off', tries: 1 },
  ];
  for (const row of triesRows) {
    void it(row.name, async () => {
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`http://127.0.0.1:${port}${row.path}`);
        await res.arrayBuffer();
        assert.equal(res.status, 502);
        const tries = triesOf(res.headers.get('x-tries'));
        assert.equal(tries.length, row.tries, `tries: ${tries.join(' | ')}`);
        assert.equal(new Set(tries).size, tries.length, `a retry went to an endpoint already tried: ${tries.join(' | ')}`);
      }
      assertCleanErrorLog(fixture, refused);
    });
  }

  const conditionRows = [
    { name: 'error timeout: a 503 answer is not retried', path: '/plain-503', method: 'GET', statuses: [200, 503] },
    { name: 'http_503: a 503 answer is retried on the other endpoint', path: '/retry-503', method: 'GET', statuses: [200] },
    { name: 'http_503 without non_idempotent: a POST is not retried', path: '/retry-503-post', method: 'POST', statuses: [200, 503] },
  ];
  for (const row of conditionRows) {
    void it(row.name, async () => {
      const seen = new Set<number>();
      for (let i = 0; i < 8; i++) {
        const res = await fetch(`http://127.0.0.1:${port}${row.path}`, { method: row.method, body: row.method === 'POST' ? 'x' : undefined });
        await res.arrayBuffer();
        seen.add(res.status);
        const tries = triesOf(res.headers.get('x-tries'));
        assert.equal(tries.length, res.status === 503 ? 1 : tries.length, `a 503 answer was retried: ${tries.join(' | ')}`);
      }
      assert.deepEqual([...seen].sort(), row.statuses);
      assertCleanErrorLog(fixture, refused);
    });
  }
});
