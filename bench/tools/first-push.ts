// What the controller's first push of backends costs, and where it goes, in
// a real NGINX with our Lua (lua/test/lua-fixture.ts, 2 workers): N backends
// of 5 endpoints each, a fresh NGINX per run (an empty store, as after a cold
// start), medians over the runs.
//
//   serialise   JSON.stringify of the body (the controller)
//   read        POST of the body to a location that only reads it (transfer)
//   decode      the configuration server's JSON decode of the body alone
//   parse       the configuration server's decode + validate + canonical text, without storing
//   store       store.replace_backends of a full set that changes every backend (after the rest)
//   apply       then that worker's worker.apply() of it (what its poll does on the version change)
//   sync        one worker's balancer.sync of every stored backend (decode + picker)
//   POST        POST /configuration/backends → 201 (read + parse + store)
//   applied     201 → GET /configuration/status says every worker holds it (polled every 1 ms)
//   push        the controller's applyBackends (POST, then its own status wait), on a second
//               fresh NGINX: the "push" phase of the cold start
//   patch       PATCH of one backend's endpoints → every worker holds it (median of 20)
//
//   node bench/tools/first-push.ts [backends ...] [--runs N]     (default 1000 10000, 5 runs)
import { setTimeout as sleep } from 'node:timers/promises';
import { applyBackends, getStatus } from '../../controller/src/nginx/lua-client.ts';
import type { DynamicBackend } from '../../controller/src/model/types.ts';
import { freePort } from '../../lua/test/nginx-harness.ts';
import { startLuaNginx, type LuaNginx } from '../../lua/test/lua-fixture.ts';
import { median } from '../lib/stats.ts';

const ENDPOINTS = 5;
const PATCHES = 20;

/** A location answering how long `call` (a Lua expression of the request `body`) took, ms; 400 with its error when it fails. */
const timedLocation = (path: string, call: string): string => `
      location = ${path} {
        content_by_lua_block {
          ngx.req.read_body()
          local body = ngx.req.get_body_data()
          ngx.update_time()
          local t0 = ngx.now()
          local ok, err = ${call}
          ngx.update_time()
          if not ok then ngx.status = 400 ngx.print(err) return end
          ngx.print((ngx.now() - t0) * 1000)
        }
      }`;

/** Bench-only locations: the POST handler's steps one at a time, and one worker's apply. */
const benchServer = (port: number): string => `
    server {
      listen 127.0.0.1:${port};
      client_max_body_size 64m; client_body_buffer_size 64m;
      location = /read {
        content_by_lua_block { ngx.req.read_body(); ngx.print(#(ngx.req.get_body_data() or "")) }
      }
${timedLocation('/parse', 'require("resty_ingress.validate").parse_backends(body)')}
${timedLocation('/decode', 'require("resty_ingress.json_body").decode_table(body, "[", "array")')}
      location = /store {
        content_by_lua_block {
          ngx.req.read_body()
          local parsed = assert(require("resty_ingress.validate").parse_backends(ngx.req.get_body_data()))
          ngx.update_time()
          local t0 = ngx.now()
          assert(require("resty_ingress.store").replace_backends(parsed))
          ngx.update_time()
          local t1 = ngx.now()
          require("resty_ingress.worker").apply()
          ngx.update_time()
          ngx.print((t1 - t0) * 1000, " ", (ngx.now() - t1) * 1000)
        }
      }
      location = /sync {
        content_by_lua_block {
          local dict = ngx.shared.resty_backends
          local balancer = require("resty_ingress.balancer")
          local names = require("resty_ingress.store").split_names(dict:get("names"))
          ngx.update_time()
          local t0 = ngx.now()
          for i = 1, #names do
            assert(balancer.sync("bench-" .. names[i], dict:get("backend:" .. names[i])))
          end
          ngx.update_time()
          local ms = (ngx.now() - t0) * 1000
          for i = 1, #names do balancer.remove("bench-" .. names[i]) end
          ngx.print(ms)
        }
      }
    }`;

function backendsOf(count: number, seed: number): DynamicBackend[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `ns-${i}-app-${i}-80`,
    loadBalance: 'round_robin' as const,
    endpoints: Array.from({ length: ENDPOINTS }, (_e, j) => ({
      address: `10.${(i >> 8) & 255}.${i & 255}.${(j + seed) % 250 + 1}`, port: 8080,
    })),
  }));
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const value = await fn();
  return [performance.now() - t0, value];
}

async function post(url: string, body: string, method = 'POST'): Promise<string> {
  const res = await fetch(url, { method, body, headers: { 'content-type': 'application/json' } });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 200)}`);
  return text;
}

async function waitApplied(fixture: LuaNginx, version: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await getStatus(fixture.statusUrl)).applied < version) {
    if (Date.now() > deadline) throw new Error(`version ${version} not applied within 30 s`);
    await sleep(1);
  }
}

function assertClean(fixture: LuaNginx): void {
  const serious = fixture.nginx.seriousLogLines();
  if (serious.length > 0) throw new Error(`NGINX logged errors:\n${serious.slice(0, 5).join('\n')}`);
}

type Sample = Record<'serialise' | 'read' | 'decode' | 'parse' | 'store' | 'apply' | 'sync' | 'POST' | 'applied' | 'push' | 'patch', number>;

async function once(count: number, seed: number): Promise<Sample> {
  const backends = backendsOf(count, seed);
  const benchPort = await freePort();
  const bench = `http://127.0.0.1:${benchPort}`;
  const fixture = await startLuaNginx(benchServer(benchPort));
  try {
    const [serialise, body] = await timed(async () => JSON.stringify(backends));
    const [read] = await timed(() => post(`${bench}/read`, body));
    const decode = Number(await post(`${bench}/decode`, body));
    const parse = Number(await post(`${bench}/parse`, body));
    const [postMs, answer] = await timed(() => post(`${fixture.statusUrl}/configuration/backends`, body));
    const version = Number(/^version (\d+)/.exec(answer)?.[1]);
    const [applied] = await timed(() => waitApplied(fixture, version));
    const sync = Number(await (await fetch(`${bench}/sync`)).text());
    const patches: number[] = [];
    for (let i = 0; i < PATCHES; i++) {
      const changed = { ...backends[(i * 7919) % count], endpoints: backendsOf(1, seed + i + 1)[0].endpoints };
      const [ms] = await timed(async () => {
        const text = await post(`${fixture.statusUrl}/configuration/backends`, JSON.stringify({ set: [changed], remove: [] }), 'PATCH');
        await waitApplied(fixture, Number(/^version (\d+)/.exec(text)?.[1]));
      });
      patches.push(ms);
    }
    const [store, apply] = (await post(`${bench}/store`, JSON.stringify(backendsOf(count, seed + 100)))).split(' ').map(Number);
    assertClean(fixture);
    await fixture.nginx.stop();
    const second = await startLuaNginx();
    try {
      const [push] = await timed(() => applyBackends(second.statusUrl, backends));
      assertClean(second);
      return { serialise, read, decode, parse, store, apply, sync, POST: postMs, applied, push, patch: median(patches) };
    } finally {
      await second.nginx.stop();
    }
  } finally {
    await fixture.nginx.stop();
  }
}

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 5;
const sizes = args.filter((_a, i) => runsAt < 0 || (i !== runsAt && i !== runsAt + 1)).map(Number);
for (const count of sizes.length > 0 ? sizes : [1000, 10_000]) {
  const samples: Sample[] = [];
  for (let run = 0; run < runs; run++) samples.push(await once(count, run));
  const keys = Object.keys(samples[0]) as (keyof Sample)[];
  const line = keys.map((key) => `${key} ${median(samples.map((s) => s[key])).toFixed(1)}`).join(', ');
  console.log(`${String(count).padStart(6)} backends × ${ENDPOINTS} endpoints, median of ${runs} (ms): ${line}`);
}
