// Derives the native reference from our rendered nginx.conf, so both sides
// run the same NGINX with the same http{} settings, servers, locations and
// user access log (`upstreaminfo`): the `upstream upstream_balancer` block
// becomes a static upstream to the same peers (keepalive lines kept as
// rendered), and what a native NGINX would not have goes: Lua on the request
// path and the per-request metrics log. Also the ablations that price one
// piece of ours each, a probe of another balancer design, and the bench-only
// jit.v snippet.

export interface Peer {
  readonly address: string;
  readonly port: number;
}

/** ours, the native reference, and ours minus one piece (to price that piece). */
export type SideLabel = 'ours' | 'native' | 'ours-no-metrics' | 'ours-no-redirect-check' | 'ours-minimal-balancer' | 'probe-native-peers' | 'probe-log-phase' | 'probe-no-log-phase';

export interface SideSpec {
  readonly label: SideLabel;
  readonly transform: (conf: string) => string;
  /** Push backends and certificates to it (our sides). */
  readonly lua: boolean;
}

// The one upstream every proxied location passes to (docs/CONTRACTS.md, NGINX ⇄ Lua).
const BALANCER_UPSTREAM = /upstream (upstream_balancer) \{\n([\s\S]*?)\n(\s*)\}/g;
const PROXY_PASS_TARGETS = /proxy_pass https?:\/\/(upstream_balancer\w*);/g;
const REQUEST_PATH_LUA = /^\s*(server_rewrite|rewrite|access|log|header_filter|body_filter|init_worker)_by_lua_block \{.*\}\s*$\n/gm;
// A location that answers 404 itself asks Lua first (ssl-redirect); without Lua it is a plain 404.
const LUA_NOT_FOUND = /^(\s*)rewrite_by_lua_block \{ resty_ingress\.not_found_https\(.*\) \}\s*$/gm;
const METRICS_LOG_FORMAT = /^\s*log_format resty_metrics .*\n/gm;
const METRICS_ACCESS_LOG = /^\s*access_log \S+ resty_metrics\b.*\n/gm;
const ROUTE = /^\s*set \$resty_route .*\n/gm;
// A route's flags: `r` (ssl-redirect) and `e` (the same with rewrite-target) turn the balancer's redirect check on.
const ROUTE_FLAGS = /^(\s*set \$resty_route ")(\S+)( )/gm;
const REDIRECT_FLAGS = /[re]/g;
// Locations with rewrite-target redirect through a named location (location.njk).
const REDIRECT_ERROR_PAGE = /^\s*error_page 500 = @resty_unbalanced_https;\n/gm;
const REDIRECT_NAMED_LOCATION = /\n\n(\s*)# [^\n]*\n\1location @resty_unbalanced_https \{\n[\s\S]*?\n\1\}/g;
const INIT_WORKER = /init_worker_by_lua_block \{(.*)\}/;
// Rate limits (render/rate-limit-view.ts): native NGINX keys its zones by the client address alone, without our per-Ingress `set`.
const LIMIT_KEY_SET = /^\s*set \$resty_limit_key .*\n/gm;
const LIMIT_ZONE_KEY = /^(\s*limit_(?:req|conn)_zone) \$resty_limit_key /gm;
const OUR_BALANCER = 'balancer_by_lua_block { resty_ingress.balance() }';

function templateChanged(what: string): Error {
  return new Error(`bench/proxy/reference-conf.ts: ${what} not found in the rendered nginx.conf; the template changed, update this file`);
}

/** `conf` without every match of `pattern`; throws when there is none (the piece we price or drop is gone). */
function removeAll(conf: string, pattern: RegExp, what: string): string {
  if ((conf.match(pattern)?.length ?? 0) === 0) throw templateChanged(what);
  return conf.replace(pattern, '');
}

/** The upstream_balancer block as a static upstream to `peers`, with `balancer` (a line) before its keepalive lines when given. */
function staticUpstreams(ours: string, peers: readonly Peer[], balancer?: string): string {
  let count = 0;
  const replaced = ours.replace(BALANCER_UPSTREAM, (_block, name: string, body: string, indent: string) => {
    count += 1;
    const keepalive = body.split('\n').filter((line) => /^\s*keepalive/.test(line)).map((line) => line.trim());
    const lines = [...peers.map((p) => `server ${p.address}:${p.port} max_fails=0;`), ...(balancer === undefined ? [] : [balancer]), ...keepalive];
    return `upstream ${name} {\n${lines.map((line) => `${indent}    ${line}`).join('\n')}\n${indent}}`;
  });
  if (count !== 1) throw templateChanged('one upstream upstream_balancer { … }');
  // A balancer block this file did not recognise would leave our Lua in place.
  if ((replaced.match(/balancer_by_lua/g)?.length ?? 0) !== (balancer === undefined ? 0 : count)) {
    throw templateChanged('every balancer_by_lua_block inside upstream upstream_balancer { … }');
  }
  const defined = new Set([...replaced.matchAll(/upstream (upstream_balancer\w*) \{/g)].map((m) => m[1]));
  for (const [, target] of replaced.matchAll(PROXY_PASS_TARGETS)) {
    if (!defined.has(target)) throw templateChanged(`upstream ${target} { … } (a location proxies to it)`);
  }
  return replaced;
}

/** The same configuration with native upstreams to `peers`, no Lua on the request path, no metrics log and no `set` only Lua or the metrics log read. */
export function nativeReferenceConf(ours: string, peers: readonly Peer[]): string {
  let conf = staticUpstreams(ours, peers);
  conf = conf.replace(LUA_NOT_FOUND, '$1return 404;');
  conf = removeAll(conf, REQUEST_PATH_LUA, 'request-path *_by_lua_block lines');
  conf = removeAll(conf, METRICS_LOG_FORMAT, 'log_format resty_metrics');
  conf = removeAll(conf, METRICS_ACCESS_LOG, 'access_log … resty_metrics');
  conf = conf.replace(LIMIT_KEY_SET, '').replace(LIMIT_ZONE_KEY, '$1 $binary_remote_addr ');
  return removeAll(conf, ROUTE, 'set $resty_route lines');
}

/** Our conf without the metrics access_log line: prices NGINX writing the metrics log (`set $resty_route` stays: the balancer reads it). */
export function withoutMetricsLog(ours: string): string {
  return removeAll(ours, METRICS_ACCESS_LOG, 'access_log … resty_metrics');
}

/**
 * True when a location (of `host`, when given) has a route flagged for the
 * ssl-redirect check (`r`, or `e` with rewrite-target) and our balancer runs it.
 */
export function checksRedirect(conf: string, host?: string): boolean {
  const where = host === undefined ? '\\S+' : host.replace(/[.*]/g, '\\$&');
  return new RegExp(`set \\$resty_route "[a-z]*[re][a-z]* \\S+ ${where} `).test(conf) && conf.includes(OUR_BALANCER);
}

/**
 * Our conf with the routes' `r` and `e` flags dropped (`-` when none is left), as
 * `ssl-redirect: "false"` renders them (no error page, no named location): prices the redirect check.
 */
export function withoutRedirectCheck(ours: string): string {
  if (!checksRedirect(ours)) throw templateChanged('a $resty_route flagged r or e');
  return ours.replace(ROUTE_FLAGS, (_line, head: string, flags: string, space: string) => `${head}${flags.replace(REDIRECT_FLAGS, '') || '-'}${space}`)
    .replace(REDIRECT_ERROR_PAGE, '')
    .replace(REDIRECT_NAMED_LOCATION, '');
}

/** Every side of the proxy benchmark, native upstreams pointing at `peers`. */
export function sideSpecs(peers: readonly Peer[]): SideSpec[] {
  if (peers.length === 0) throw new Error('sideSpecs: no peers');
  return [
    { label: 'ours', transform: (conf) => conf, lua: true },
    { label: 'native', transform: (conf) => nativeReferenceConf(conf, peers), lua: false },
    { label: 'ours-no-metrics', transform: withoutMetricsLog, lua: true },
    { label: 'ours-no-redirect-check', transform: withoutRedirectCheck, lua: true },
    { label: 'ours-minimal-balancer', transform: (conf) => withMinimalBalancer(conf, peers), lua: true },
    { label: 'probe-native-peers', transform: (conf) => withNativePeersUnderLua(conf, peers), lua: true },
    { label: 'probe-log-phase', transform: withLogPhaseEverywhere, lua: true },
    { label: 'probe-no-log-phase', transform: withoutLogPhase, lua: true },
  ];
}

/**
 * A probe of another design, not a benchmark row (bench/tools/instructions-per-request.ts
 * runs it by name): NGINX's own round robin and keepalive over `server` lines, under a
 * `balancer_by_lua` that picks no peer, so ngx_lua falls back to those servers; metrics
 * log and labels as ours. Prices "Lua steps in only for backends whose endpoints changed
 * since the last reload": entering Lua, without set_current_peer or a variable read
 * (and without the redirect check, which would still read variables).
 */
export function withNativePeersUnderLua(ours: string, peers: readonly Peer[]): string {
  return staticUpstreams(ours, peers, 'balancer_by_lua_block { local _ = 0 }');
}

// A proxied location: its backend's name, then what comes before its proxy_pass.
const PROXIED_LOCATION = /(set \$proxy_upstream_name ("[^"]*");[\s\S]*?\n)(\s*)(proxy_pass https?:\/\/upstream_balancer;)/g;

/**
 * A probe, not a benchmark row: our conf with a Lua log phase in every proxied
 * location that has none, as EWMA's response-time feedback would need if the
 * algorithm could change without a reload and feedback came from log_by_lua.
 * Prices that log phase on a round-robin route (log() returns at once there).
 */
export function withLogPhaseEverywhere(ours: string): string {
  let count = 0;
  const replaced = ours.replace(PROXIED_LOCATION, (whole: string, head: string, name: string, indent: string, pass: string) => {
    if (head.includes('log_by_lua_block')) return whole;
    count += 1;
    return `${head}${indent}log_by_lua_block { resty_ingress.log(${name}) }\n${indent}${pass}`;
  });
  if (count === 0) throw templateChanged('a proxied location (set $proxy_upstream_name … proxy_pass …upstream_balancer)');
  return replaced;
}

const LOG_PHASE = /^\s*log_by_lua_block \{.*\}\s*$\n/gm;

/**
 * A probe, not a benchmark row: our conf without its Lua log phases (run it on the ewma route:
 * EWMA then picks without response-time feedback). Prices the log phase of an EWMA location.
 */
export function withoutLogPhase(ours: string): string {
  return removeAll(ours, LOG_PHASE, 'log_by_lua_block lines');
}

/**
 * Our conf with the least a `balancer_by_lua` can do in place of ours: the
 * same peers in turn, no variable read, no tries, no redirect check (a counter
 * and set_current_peer, compiled by LuaJIT). Prices our balancer's logic;
 * it takes the peers in turn like ours, so that what differs is only logic.
 */
export function withMinimalBalancer(ours: string, peers: readonly Peer[]): string {
  if (!ours.includes(OUR_BALANCER)) throw templateChanged(OUR_BALANCER);
  // The counter lives in the ngx.balancer module table: a chunk's locals last one call.
  const picks = peers.map((p, i) => `${i === 0 ? 'if' : 'elseif'} n == ${i + 1} then b.set_current_peer(${JSON.stringify(p.address)}, ${p.port})`).join(' ');
  const minimal = `balancer_by_lua_block { local b = package.loaded["ngx.balancer"]; local n = (b.bench_turn or 0) % ${peers.length} + 1; b.bench_turn = n; ${picks} end }`;
  return ours.replaceAll(OUR_BALANCER, minimal);
}

/**
 * Our conf with jit.v started in each worker, writing to `traceFile`.
 * jit.v ships with LuaJIT (share/luajit-2.1/jit/v.lua), not on the data
 * plane's Lua path, so `luajitShare` is prepended for this run only.
 */
export function withJitTrace(ours: string, luajitShare: string, traceFile: string): string {
  const match = INIT_WORKER.exec(ours);
  if (match === null) throw templateChanged('init_worker_by_lua_block { … }');
  const start = `package.path = ${JSON.stringify(`${luajitShare}/?.lua;`)} .. package.path; require("jit.v").start(${JSON.stringify(traceFile)});`;
  return ours.replace(INIT_WORKER, `init_worker_by_lua_block { ${start} ${match[1] ?? ''} }`);
}

/**
 * What the measured side turns on that matters for the request path (printed
 * with the results). `certificateHosts`: hosts whose certificate was pushed to
 * Lua, which nginx.conf cannot show.
 */
export function activeFeatures(conf: string, certificateHosts: readonly string[]): string[] {
  const features: string[] = [];
  const has = (re: RegExp): boolean => re.test(conf);
  if (has(/balancer_by_lua_block/)) features.push('Lua balancer');
  if (has(/access_log \S+ resty_metrics\b/)) features.push('request metrics via the NGINX access log');
  if (checksRedirect(conf)) features.push('HTTP→HTTPS redirect check in the balancer');
  if (has(/return 30[1278] https:\/\//)) features.push('force-ssl-redirect');
  if (has(/listen [^;]*\bssl\b/)) features.push('TLS listener');
  if (certificateHosts.length > 0) features.push(`TLS host with a pushed certificate (${certificateHosts.join(', ')})`);
  features.push(has(/access_log \S+ upstreaminfo\b/) ? 'access log on' : 'access log off');
  if (has(/^\s*rewrite "/m)) features.push('rewrite-target');
  // The catch-all's Lua 404 (not_found_https) is not on the measured path; any other rewrite phase is.
  if (has(/rewrite_by_lua_block \{ (?!resty_ingress\.not_found_https\()/)) features.push('Lua rewrite phase');
  if (has(/log_by_lua_block/)) features.push('Lua log phase');
  return features;
}
