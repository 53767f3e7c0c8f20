// User-space instructions per request answered by the catch-all server, the
// only requests that pay the pending-host check (server.njk's
// pending-hosts.njk, lua/resty_ingress/pending.lua), counted by callgrind as
// instructions-per-request.ts counts them. wrk's host is left out of the
// proxy model, so every request lands in the catch-all:
//   catch-all-miss         the host is not pending: the check, then the catch-all's own proxied `/`
//   catch-all-no-check     the same without the server_rewrite_by_lua line (before pending hosts)
//   pending-hit            the host pending (set in init_worker, as a push would): proxied through @resty_pending
// (compare pending-hit with instructions-per-request.ts ours@plain: the same proxying, rendered).
// A plain route on a rendered host never runs the check (instructions-per-request.ts ours@plain).
//
//   node bench/tools/catch-all-instructions.ts
import type { Model } from '../../controller/src/model/types.ts';
import { countInstructions, hasCallgrind } from '../proxy/instruction-count.ts';
import { BENCH_HOST } from '../proxy/proxy-model.ts';
import type { SideSpec } from '../proxy/reference-conf.ts';
import { withProxyTool } from './proxy-tool-setup.ts';

const WINDOWS = { warmupSeconds: 3, idleSeconds: 3, seconds: 8, connections: 4 };
const CHECK = /^\s*server_rewrite_by_lua_block \{ resty_ingress\.pending\(\) \}\n/mu;
const INIT_WORKER = 'init_worker_by_lua_block { require("resty_ingress.worker").init_worker() }';

if (!hasCallgrind()) throw new Error('valgrind is not installed (npm run setup installs it)');
await withProxyTool(['ours'], async ({ ctx, model, sides }) => {
  const ours = sides[0] as SideSpec;
  const benchServer = model.servers.find((s) => s.hostname === BENCH_HOST);
  const root = benchServer?.locations.find((l) => l.path === '/' && l.route.kind === 'backend');
  if (root === undefined || root.route.kind !== 'backend') throw new Error(`the proxy model has no proxied / on ${BENCH_HOST}`);
  // Without wrk's host; for the misses the catch-all proxies `/` itself (a host-less rule), so the side answers 200.
  const withoutHost: Model = { ...model, servers: model.servers.filter((s) => s.hostname !== BENCH_HOST) };
  const catchAllRoot = { ...root, route: { ...root.route, key: root.route.key.replace(` ${BENCH_HOST} `, ' _ ') } };
  const proxyingCatchAll: Model = {
    ...withoutHost,
    servers: withoutHost.servers.map((s) => (s.hostname === '_' ? { ...s, locations: [catchAllRoot, ...s.locations.filter((l) => l.path !== '/')] } : s)),
  };
  const pending = JSON.stringify({ hosts: [{ host: BENCH_HOST, paths: [{ path: '/', match: 'prefix', key: root.route.key }] }] });
  const setPending = `init_worker_by_lua_block { require("resty_ingress.worker").init_worker(); `
    + `require("resty_ingress.pending").set_hosts(require("resty_ingress.pending_api").compile([[${pending}]])) }`;
  const mustHave = (conf: string, what: RegExp | string): string => {
    if (typeof what === 'string' ? !conf.includes(what) : !what.test(conf)) throw new Error(`the rendered conf has no ${String(what)}`);
    return conf;
  };
  const runs: { name: string; model: Model; spec: SideSpec }[] = [
    { name: 'catch-all-miss', model: proxyingCatchAll, spec: ours },
    { name: 'catch-all-no-check', model: proxyingCatchAll, spec: { ...ours, transform: (conf) => ours.transform(mustHave(conf, CHECK)).replace(CHECK, '') } },
    // The catch-all answers 404 here: the side's 200 check proves the pending route served it.
    { name: 'pending-hit', model: withoutHost, spec: { ...ours, transform: (conf) => ours.transform(mustHave(conf, INIT_WORKER)).replace(INIT_WORKER, setPending) } },
  ];
  for (const run of runs) {
    const count = await countInstructions({ ...ctx, log: () => {} }, run.model, run.spec, WINDOWS, [], run.name);
    console.log(`${run.name.padEnd(22)} ${String(count.requests).padStart(7)} requests  ${count.perRequest.toFixed(0).padStart(7)} instructions/request  `
      + `${count.failed} failed  (background ${Math.round(count.idlePerSecond)}/s)  ${count.dumpFile}`);
  }
});
