// Derives the native reference from our rendered nginx.conf, so both sides
// run the same NGINX with the same http{} settings, servers, locations and
// access log: only the Lua request path is replaced by a static
// `upstream {}` to the same peers (keepalive lines kept as rendered). Also
// injects the bench-only jit.v snippet that proves the hot Lua is compiled.

export interface Peer {
  readonly address: string;
  readonly port: number;
}

const BALANCER_UPSTREAM = /upstream upstream_balancer \{\n([\s\S]*?)\n(\s*)\}/;
const REQUEST_PATH_LUA = /^\s*(rewrite|access|log|header_filter|body_filter|init_worker)_by_lua_block \{.*\}\s*$\n/gm;
const INIT_WORKER = /init_worker_by_lua_block \{(.*)\}/;

function templateChanged(what: string): Error {
  return new Error(`bench/proxy/reference-conf.ts: ${what} not found in the rendered nginx.conf; the template changed, update this file`);
}

/** The same configuration with a native upstream to `peers` and no Lua on the request path. */
export function nativeReferenceConf(ours: string, peers: readonly Peer[]): string {
  const upstream = BALANCER_UPSTREAM.exec(ours);
  if (upstream === null) throw templateChanged('upstream upstream_balancer { … }');
  const indent = `${upstream[2] ?? ''}    `;
  const keepalive = (upstream[1] ?? '').split('\n').filter((line) => /^\s*keepalive/.test(line)).map((line) => line.trim());
  const body = [...peers.map((p) => `server ${p.address}:${p.port} max_fails=0;`), ...keepalive].map((line) => indent + line).join('\n');
  const replaced = ours.replace(BALANCER_UPSTREAM, `upstream upstream_balancer {\n${body}\n${upstream[2] ?? ''}}`);
  const removed = replaced.match(REQUEST_PATH_LUA)?.length ?? 0;
  if (removed === 0) throw templateChanged('request-path *_by_lua_block lines');
  return replaced.replace(REQUEST_PATH_LUA, '');
}

/** Our conf without one Lua phase (`log`, `rewrite`): the ablation that prices that phase per request. */
export function withoutLuaPhase(ours: string, phase: 'log' | 'rewrite'): string {
  const line = new RegExp(`^\\s*${phase}_by_lua_block \\{.*\\}\\s*$\\n`, 'gm');
  if (!line.test(ours)) throw templateChanged(`${phase}_by_lua_block lines`);
  return ours.replace(line, '');
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

/** What the rendered conf turns on that matters for the request path (printed with the results). */
export function activeFeatures(conf: string): string[] {
  const features: string[] = [];
  const has = (re: RegExp): boolean => re.test(conf);
  if (has(/rewrite_by_lua_block/)) features.push('Lua rewrite phase');
  if (has(/balancer_by_lua_block/)) features.push('Lua balancer');
  if (has(/log_by_lua_block/)) features.push('Lua log phase');
  if (has(/log_by_lua_block \{[^}]*(log_phase|metrics|monitor|resty_ingress\.log\()/i)) features.push('request metrics (Lua log phase)');
  if (has(/listen [^;]*\bssl\b/)) features.push('TLS listener');
  if (has(/ssl_redirect|force_ssl|return 30[178] https|rewrite_https|not_found_https/i)) features.push('HTTP→HTTPS redirect logic');
  features.push(has(/access_log "?\//) ? 'access log on' : 'access log off');
  if (has(/^\s*rewrite "/m)) features.push('rewrite-target');
  return features;
}
