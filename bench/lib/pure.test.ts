// Unit tests of the benchmarks' pure parts: statistics, goal verdicts, the
// native reference transform and its ablations (on a hand-written conf and on
// the proxy benchmark's real rendered one), the jit.v reader and the
// metrics-log batching.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../controller/src/nginx/dataplane.ts';
import { createConfigRenderer } from '../../controller/src/render/index.ts';
import { describeJit, functionRange, readJitTrace, REQUEST_PATH_FILES, requestPathPhases, traceStartLines } from '../proxy/jit-trace.ts';
import { newestDump, singleProcess, timerInstructions } from '../proxy/instruction-count.ts';
import { batchesOf } from '../proxy/metrics-parse-cost.ts';
import { BENCH_HOST, BENCH_ROUTES, buildProxyModel, NATIVE_KEEPS, SECURE_HOST } from '../proxy/proxy-model.ts';
import {
  activeFeatures, checksRedirect, nativeReferenceConf, withMinimalBalancer, withNativePeersUnderLua, withoutMetricsLog, withoutRedirectCheck,
} from '../proxy/reference-conf.ts';
import { formatResult, metric, verdict, type Goal } from './report.ts';
import { medianInterval, pairedRatios, percentile, summarize } from './stats.ts';
import { STEADY_PAUSE_MS, steadyPauseMs } from './wrk.ts';

test('percentile: nearest rank', () => {
  const rows = [
    { name: 'median of 1..100', samples: Array.from({ length: 100 }, (_, i) => i + 1), p: 50, want: 50 },
    { name: 'p99 of 1..100', samples: Array.from({ length: 100 }, (_, i) => i + 1), p: 99, want: 99 },
    { name: 'p100 is the max', samples: [3, 1, 2], p: 100, want: 3 },
    { name: 'single sample', samples: [7], p: 99, want: 7 },
  ];
  for (const row of rows) assert.equal(percentile(row.samples, row.p), row.want, row.name);
  assert.ok(Number.isNaN(summarize([]).p99), 'no samples → NaN, not a made-up number');
});

test('steadyPauseMs: the pause for a fraction of the saturated rate', () => {
  const rows: { name: string; connections: number; saturated: number; fraction?: number; want: number }[] = [
    { name: '20 connections at half of 5,000 req/s: 8 ms each', connections: 20, saturated: 5000, want: 8 },
    { name: 'a quarter of 5,000: 16 ms', connections: 20, saturated: 5000, fraction: 0.25, want: 16 },
    { name: 'rounded to whole ms (wrk\'s delay)', connections: 20, saturated: 5500, want: 7 },
    { name: 'never below 1 ms', connections: 1, saturated: 1e6, want: 1 },
    { name: 'no saturated rate measured: the fixed pause', connections: 20, saturated: 0, want: STEADY_PAUSE_MS },
  ];
  for (const row of rows) assert.equal(steadyPauseMs(row.connections, row.saturated, row.fraction), row.want, row.name);
});

test('metric: goal verdicts on value and on ratio', () => {
  const ratioAtLeast: Goal = { on: 'ratio', op: '>=', target: 0.9 };
  const zero: Goal = { on: 'value', op: '==', target: 0 };
  const rows = [
    { name: 'ratio met', value: 95, reference: 100, goal: ratioAtLeast, missed: false },
    { name: 'ratio missed', value: 50, reference: 100, goal: ratioAtLeast, missed: true },
    { name: 'value met', value: 0, reference: 0, goal: zero, missed: false },
    { name: 'value missed', value: 3, reference: 0, goal: zero, missed: true },
    { name: 'not measured counts as missed', value: null, reference: 100, goal: ratioAtLeast, missed: true },
  ];
  for (const row of rows) assert.equal(metric(row.name, '', row.value, row.reference, 'ref', row.goal).missed, row.missed, row.name);
});

test('medianInterval: order statistics whose binomial coverage reaches the confidence asked', () => {
  const ranks = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);
  const rows = [
    { name: 'no samples', samples: [], want: null },
    { name: 'one sample covers nothing', samples: [7], want: { low: 7, high: 7, confidence: 0 } },
    { name: '5 rounds: min–max covers only 1 − 2/32', samples: ranks(5), want: { low: 1, high: 5, confidence: 1 - 2 / 32 } },
    { name: '8 rounds: min–max (x2–x7 would cover 1 − 18/256 < 95 %)', samples: ranks(8), want: { low: 1, high: 8, confidence: 1 - 2 / 256 } },
    { name: '12 rounds: x3–x10 (1 − 2·79/4096)', samples: ranks(12), want: { low: 3, high: 10, confidence: 1 - (2 * 79) / 4096 } },
    { name: 'unsorted input is sorted first', samples: [9, 1, 5, 3, 7, 2, 8, 4, 6, 12, 10, 11], want: { low: 3, high: 10, confidence: 1 - (2 * 79) / 4096 } },
  ];
  for (const row of rows) assert.deepEqual(medianInterval(row.samples), row.want, row.name);
  const forty = medianInterval(ranks(40));
  // 40 rounds: x14–x27, the textbook pair, covering just over 95 %.
  assert.ok(forty && forty.low === 14 && forty.high === 27 && forty.confidence >= 0.95 && forty.confidence < 0.97, `40 rounds: ${JSON.stringify(forty)}`);
  assert.deepEqual(medianInterval(ranks(12), 0.8), { low: 4, high: 9, confidence: 1 - (2 * 299) / 4096 }, 'a lower confidence narrows the pair');
});

test('metric: a goal met by the median but not by its whole interval is on the line', () => {
  const atLeast: Goal = { on: 'value', op: '>=', target: 0.9 };
  const atMost: Goal = { on: 'value', op: '<=', target: 1.2 };
  const interval = (low: number, high: number) => ({ low, high, confidence: 0.96 });
  const rows = [
    { name: 'whole interval above', value: 0.93, goal: atLeast, interval: interval(0.91, 0.95), want: 'ok' },
    { name: 'median above, low end below', value: 0.902, goal: atLeast, interval: interval(0.88, 0.92), want: 'ON THE LINE' },
    { name: 'median below', value: 0.887, goal: atLeast, interval: interval(0.86, 0.90), want: 'MISSED GOAL' },
    { name: 'upper goal, high end above', value: 1.11, goal: atMost, interval: interval(0.72, 1.30), want: 'ON THE LINE' },
    { name: 'upper goal, whole interval below', value: 1.05, goal: atMost, interval: interval(0.98, 1.15), want: 'ok' },
    { name: 'no interval: the median alone decides', value: 0.902, goal: atLeast, interval: null, want: 'ok' },
  ];
  for (const row of rows) assert.equal(verdict(metric(row.name, '×', row.value, 1, 'native', row.goal, row.interval)), row.want, row.name);
  assert.equal(verdict(metric('no goal', '×', 0.5, 1, 'native')), '', 'no goal, no verdict');
  assert.throws(() => metric('ratio goal', 'ms', 5, 4, 'before', { on: 'ratio', op: '<', target: 1.5 }, interval(4, 6)), /interval goes with a goal on the value/);
  const printed = formatResult({
    id: 'x', title: 'X', notes: [], distributions: [], raw: null,
    metrics: [metric('per core', '×', 0.902, 1, 'native', atLeast, interval(0.88, 0.92))],
  });
  assert.match(printed, /0\.902 × \[0\.88–0\.92 at 96 %\]/, 'the table shows the interval');
  assert.match(printed, /^ {2}ON THE LINE: per core = .*the noise decides\)$/m, 'and says the noise decides');
});

// The shape of a rendered conf with HTTPS on (rootfs/etc/nginx/template), trimmed to what the transforms touch.
const OURS = `http {
    log_format upstreaminfo '$remote_addr $status';
    access_log "/p/access.log" upstreaminfo;
    log_format resty_metrics '$resty_route\\t$status';
    init_by_lua_block { require("resty_ingress.init").init({ unavailable = "unix:/p/unavailable.sock", https_redirect = "unix:/p/https-redirect.sock" }) }
    init_worker_by_lua_block { require("resty_ingress.worker").init_worker() }
    upstream upstream_balancer {
        server 0.0.0.1; # placeholder, never used
        balancer_by_lua_block { resty_ingress.balance() }
        keepalive 320;
        keepalive_timeout 60s;
    }
    server {
        listen "127.0.0.1:3";
        set $resty_route "";
    }
    server {
        listen "127.0.0.1:1" default_server;
        listen "127.0.0.1:2" ssl default_server;
        location "/" {
            rewrite_by_lua_block { resty_ingress.not_found_https(308, ":2") }
        }
    }
    server {
        listen "unix:/p/unavailable.sock";
        access_log off;
        return 503;
    }
    server {
        listen "127.0.0.1:1";
        access_log "/p/access.log" upstreaminfo;
        access_log "/p/metrics.log" resty_metrics buffer=64k flush=1s;
        location "/ewma" {
            set $proxy_upstream_name "ns-ewma-80";
            set $resty_route "- ns-ewma-80 h ns ewma ewma /ewma";
            log_by_lua_block { resty_ingress.log("ns-ewma-80") }
            proxy_pass http://upstream_balancer;
        }
        location "/" {
            set $proxy_upstream_name "ns-app-80";
            set $resty_route "r ns-app-80 h ns app app /";
            proxy_pass http://upstream_balancer;
        }
        location ~* "^/api(/|$)(.*)" {
            set $proxy_upstream_name "ns-app-80";
            set $resty_route "e ns-app-80 h ns api app /api(/|\`)(.*)";
            rewrite "(?i)/api(/|$)(.*)" "/$2" break;
            error_page 500 = @resty_unbalanced_https;
            proxy_pass http://upstream_balancer;
        }

        # ssl-redirect of the locations with rewrite-target (lua/resty_ingress/unbalanced.lua).
        location @resty_unbalanced_https {
            content_by_lua_block { resty_ingress.unbalanced(308, ":2") }
        }
    }
}
`;

const PEERS = [{ address: '127.0.0.2', port: 81 }, { address: '127.0.0.3', port: 81 }];
const STATIC_BODY = 'server 127\\.0\\.0\\.2:81 max_fails=0;\\n\\s+server 127\\.0\\.0\\.3:81 max_fails=0;\\n\\s+keepalive 320;\\n\\s+keepalive_timeout 60s;\\n\\s+\\}';

test('nativeReferenceConf: the balancer upstream static, no Lua on the request path, no metrics log', () => {
  const native = nativeReferenceConf(OURS, PEERS);
  const rows: { name: string; pattern: RegExp; present: boolean }[] = [
    { name: 'upstream_balancer: peers then keepalive', pattern: new RegExp(`upstream upstream_balancer \\{\\n\\s+${STATIC_BODY}`), present: true },
    { name: 'no balancer Lua', pattern: /balancer_by_lua|placeholder/, present: false },
    { name: 'no init_worker, rewrite or log phase', pattern: /(init_worker|rewrite|log)_by_lua/, present: false },
    { name: 'the Lua 404 becomes a plain one', pattern: /location "\/" \{\n\s+return 404;\n\s+\}/, present: true },
    { name: 'no metrics log_format', pattern: /log_format resty_metrics/, present: false },
    { name: 'no metrics access_log', pattern: /metrics\.log/, present: false },
    { name: 'no route (only our balancer and the metrics log read it)', pattern: /resty_route/, present: false },
    { name: 'the user access log stays', pattern: /access_log "\/p\/access\.log" upstreaminfo;/, present: true },
    { name: 'locations keep their upstream', pattern: /location "\/" \{\n[^}]*proxy_pass http:\/\/upstream_balancer;/, present: true },
  ];
  for (const row of rows) assert.equal(row.pattern.test(native), row.present, row.name);
});

test('nativeReferenceConf: a missing or unknown piece is "template changed", never a silent half-native conf', () => {
  const rows = [
    { name: 'no upstream at all', conf: 'http { }', why: /upstream upstream_balancer \{/ },
    { name: 'the balancer upstream renamed', conf: OURS.replace('upstream upstream_balancer {', 'upstream other {'), why: /upstream upstream_balancer \{/ },
    { name: 'a location proxies to an upstream that is not there', conf: OURS.replace('proxy_pass http://upstream_balancer;', 'proxy_pass http://upstream_balancer_grpc;'), why: /upstream upstream_balancer_grpc/ },
    {
      name: 'a second Lua balancer outside the upstream it knows', why: /every balancer_by_lua_block/,
      conf: OURS.replace('    server {', '    upstream balancer_two {\n        balancer_by_lua_block { resty_ingress.balance() }\n    }\n    server {'),
    },
    { name: 'no request-path Lua', conf: OURS.replaceAll(/^.*(init_worker|log|rewrite)_by_lua_block.*\n/gm, ''), why: /request-path \*_by_lua_block/ },
    { name: 'no metrics access_log', conf: OURS.replace(/^.*access_log "\/p\/metrics\.log".*\n/m, ''), why: /access_log … resty_metrics/ },
    { name: 'no metrics log_format', conf: OURS.replace(/^.*log_format resty_metrics.*\n/m, ''), why: /log_format resty_metrics/ },
    { name: 'no route', conf: OURS.replaceAll(/^.*set \$resty_route.*\n/gm, ''), why: /set \$resty_route/ },
  ];
  for (const row of rows) {
    assert.throws(() => nativeReferenceConf(row.conf, PEERS), (err: Error) => /template changed/.test(err.message) && row.why.test(err.message), row.name);
  }
});

test('ablations: each removes exactly the piece it prices', () => {
  const noMetrics = withoutMetricsLog(OURS);
  const noRedirect = withoutRedirectCheck(OURS);
  const minimal = withMinimalBalancer(OURS, PEERS);
  const nativePeers = withNativePeersUnderLua(OURS, PEERS);
  const rows: { name: string; conf: string; pattern: RegExp; present: boolean }[] = [
    { name: 'no-metrics: no metrics access_log', conf: noMetrics, pattern: /access_log \S+ resty_metrics/, present: false },
    { name: 'no-metrics: the user access log stays', conf: noMetrics, pattern: /access_log \S+ upstreaminfo;/, present: true },
    { name: 'no-metrics: the redirect check stays', conf: noMetrics, pattern: /set \$resty_route "r ns-app-80 /, present: true },
    { name: 'no-metrics: the Lua balancer stays', conf: noMetrics, pattern: /resty_ingress\.balance\(\)/, present: true },
    { name: 'no-redirect-check: no route flagged r or e', conf: noRedirect, pattern: /set \$resty_route "[a-z]*[re]/, present: false },
    { name: 'no-redirect-check: the r route becomes "-", the rest of it kept', conf: noRedirect, pattern: /set \$resty_route "- ns-app-80 h ns app app \/";\n\s+proxy_pass http:\/\/upstream_balancer;/, present: true },
    { name: 'no-redirect-check: the e route becomes "-"', conf: noRedirect, pattern: /set \$resty_route "- ns-app-80 h ns api app /, present: true },
    { name: 'no-redirect-check: a route without the check is left alone', conf: noRedirect, pattern: /set \$resty_route "- ns-ewma-80 h ns ewma ewma \/ewma";/, present: true },
    { name: 'no-redirect-check: rewrite-target without its error page', conf: noRedirect, pattern: /rewrite "[^\n]*\n\s+proxy_pass http:\/\/upstream_balancer;/, present: true },
    { name: 'no-redirect-check: no named location, as ssl-redirect "false" renders it', conf: noRedirect, pattern: /@resty_unbalanced|unbalanced\.lua/, present: false },
    { name: 'no-redirect-check: the metrics log stays', conf: noRedirect, pattern: /access_log \S+ resty_metrics/, present: true },
    { name: 'minimal-balancer: no balancer of ours', conf: minimal, pattern: /resty_ingress\.balance/, present: false },
    {
      name: 'minimal-balancer: the upstream takes the peers in turn, keepalive after it', conf: minimal, present: true,
      pattern: /upstream upstream_balancer \{\n[^}]*balancer_by_lua_block \{ local b = package\.loaded\["ngx\.balancer"\]; local n = \(b\.bench_turn or 0\) % 2 \+ 1; b\.bench_turn = n; if n == 1 then b\.set_current_peer\("127\.0\.0\.2", 81\) elseif n == 2 then b\.set_current_peer\("127\.0\.0\.3", 81\) end \}\n\s+keepalive 320;/,
    },
    { name: 'minimal-balancer: locations, metrics log and redirect handler stay', conf: minimal, pattern: /access_log \S+ resty_metrics[\s\S]*set \$resty_route "r [^\n]*\n\s+proxy_pass http:\/\/upstream_balancer;[\s\S]*@resty_unbalanced_https \{/, present: true },
    { name: 'probe-native-peers: no balancer of ours', conf: nativePeers, pattern: /resty_ingress\.balance/, present: false },
    {
      name: 'probe-native-peers: the peers as servers, then a Lua balancer that picks none, then keepalive', conf: nativePeers, present: true,
      pattern: /upstream upstream_balancer \{\n\s+server 127\.0\.0\.2:81 max_fails=0;\n\s+server 127\.0\.0\.3:81 max_fails=0;\n\s+balancer_by_lua_block \{ local _ = 0 \}\n\s+keepalive 320;/,
    },
    { name: 'probe-native-peers: metrics log and labels stay', conf: nativePeers, pattern: /access_log \S+ resty_metrics[\s\S]*set \$resty_route/, present: true },
  ];
  for (const row of rows) assert.equal(row.pattern.test(row.conf), row.present, row.name);
  assert.throws(() => withoutMetricsLog(noMetrics), /template changed/, 'no metrics log to remove');
  assert.throws(() => withoutRedirectCheck(noRedirect), /template changed/, 'no redirect check to remove');
  assert.throws(() => withMinimalBalancer(minimal, PEERS), /template changed/, 'no balancer of ours to replace');
});

test('activeFeatures: says what is on, and only that', () => {
  const rows = [
    {
      name: 'ours with a certificate host', conf: OURS, hosts: ['secure.example.com'],
      want: ['Lua balancer', 'request metrics via the NGINX access log', 'HTTP→HTTPS redirect check in the balancer', 'TLS listener',
        'TLS host with a pushed certificate (secure.example.com)', 'access log on', 'rewrite-target', 'Lua log phase'],
    },
    {
      name: 'native', conf: nativeReferenceConf(OURS, PEERS), hosts: [],
      want: ['TLS listener', 'access log on', 'rewrite-target'],
    },
    {
      name: 'no redirect check, no EWMA, a Lua rewrite phase', hosts: [],
      conf: withoutRedirectCheck(OURS).replace(/log_by_lua_block \{.*\}/, 'rewrite_by_lua_block { resty_ingress.other() }'),
      want: ['Lua balancer', 'request metrics via the NGINX access log', 'TLS listener', 'access log on', 'rewrite-target', 'Lua rewrite phase'],
    },
  ];
  for (const row of rows) assert.deepEqual(activeFeatures(row.conf, row.hosts), row.want, row.name);
});

test('the proxy benchmark\'s real conf: one certificate host, and every transform applies', () => {
  const { model } = buildProxyModel(PEERS);
  assert.deepEqual(model.tls.hosts.map((h) => h.host), [SECURE_HOST]);
  const renderer = createConfigRenderer({
    templateDir: join(repoRoot(), 'rootfs/etc/nginx/template'), prefix: '/p', listenAddress: '127.0.0.1',
    httpPort: 1, httpsPort: 2, statusPort: 3, workerProcesses: 1, dataplane: { modules: [], luaPackagePath: '/l/?.lua;;', luaPackageCPath: '/l/?.so;;' },
  });
  const ours = renderer.render(model).conf;
  const native = nativeReferenceConf(ours, PEERS);
  // What may stay on the native side: start-up, the status API, TLS handshakes and the no-peer handler, none on a proxied request.
  const luaLeft = [...native.matchAll(/(\w+)_by_lua_block/g)].map((m) => m[1]).filter((phase) => !['init', 'content', 'ssl_client_hello'].includes(phase ?? ''));
  assert.deepEqual(luaLeft, [], 'native: no request-path Lua');
  assert.doesNotMatch(native, /^\s*[^#\s].*resty_metrics/m, 'native: no metrics (comments may name them)');
  assert.doesNotMatch(withoutRedirectCheck(ours), /set \$resty_route "[a-z]*[re]/, 'no-redirect-check');
  assert.ok(checksRedirect(ours, SECURE_HOST) && checksRedirect(ours, BENCH_HOST), 'both hosts\' / locations have the redirect check');
  for (const route of NATIVE_KEEPS) {
    // Allow lists, CORS and limit_req are NGINX directives: native keeps them, and drops only the Lua.
    const conf = renderer.render(buildProxyModel(PEERS, route).model).conf;
    assert.notEqual(conf, ours, `${route}: its own nginx.conf`);
    assert.deepEqual(requestPathPhases(nativeReferenceConf(conf, PEERS)), [], `${route}: native has no request-path Lua`);
    const kept = { 'allow-list': /allow "10\.0\.0\.0\/8";/, 'cors-simple': /Access-Control-Allow-Origin/, 'limit-rps': /limit_req zone=/ }[route as string];
    assert.ok(kept, `${route}: a directive native keeps`);
    assert.match(nativeReferenceConf(conf, PEERS), kept, `${route}: native keeps its directives`);
  }
  for (const route of BENCH_ROUTES.filter((r) => !NATIVE_KEEPS.has(r))) {
    // A canary and a hash are pushed to Lua, never rendered; EWMA adds its log phase, which native strips: every route's native reference is the same conf.
    const conf = renderer.render(buildProxyModel(PEERS, route).model).conf;
    // The config version is a digest of the whole text: it differs with the log phase.
    const versionless = (text: string): string => text.replaceAll(/Config version "([0-9a-f]+)"/g.exec(text)?.[1] ?? '\u0000', '<version>');
    if (route === 'basic-auth') {
      // Authentication adds the Lua access phase to wrk's locations, nothing else: native is the plain route's.
      assert.equal((conf.match(/access_by_lua_block \{ resty_ingress\.auth\("[^"]+"\) \}/gu) ?? []).length, 1, 'basic-auth: wrk\'s location checks credentials');
      assert.equal(versionless(nativeReferenceConf(conf, PEERS)), versionless(native), 'basic-auth: the plain route\'s native reference');
    } else if (route === 'ewma') assert.equal(versionless(nativeReferenceConf(conf, PEERS)), versionless(native), `${route}: the same native reference as the plain route`);
    else assert.equal(conf, ours, `${route}: the same nginx.conf as the plain route`);
  }
  assert.deepEqual(requestPathPhases(renderer.render(buildProxyModel(PEERS, 'ewma').model).conf), ['balance', 'log'], 'ewma: its log phase');
  assert.doesNotMatch(withoutMetricsLog(ours), /access_log \S+ resty_metrics/, 'no-metrics');
  assert.doesNotMatch(withMinimalBalancer(ours, PEERS), /resty_ingress\.balance/, 'minimal-balancer');
  assert.doesNotMatch(withNativePeersUnderLua(ours, PEERS), /resty_ingress\.balance/, 'probe-native-peers');
  assert.deepEqual(requestPathPhases(ours), ['balance'], 'round_robin only: no log phase');
  const sources = Object.fromEntries(REQUEST_PATH_FILES.map((file) => [file, readFileSync(join(repoRoot(), 'lua/resty_ingress', file), 'utf8')]));
  assert.doesNotThrow(() => readJitTrace('', sources), 'every request-path function jit-trace.ts names exists in lua/resty_ingress');
  assert.ok(activeFeatures(ours, [SECURE_HOST]).includes('HTTP→HTTPS redirect check in the balancer'), 'wrk\'s location has the redirect check');
});

test('requestPathPhases: the balancer, and log only where a log_by_lua exists', () => {
  const rows = [
    { name: 'EWMA location present', conf: OURS, want: ['balance', 'log'] },
    { name: 'round_robin only', conf: OURS.replace(/^.*log_by_lua_block.*\n/m, ''), want: ['balance'] },
    { name: 'native', conf: nativeReferenceConf(OURS, PEERS), want: [] },
  ];
  for (const row of rows) assert.deepEqual(requestPathPhases(row.conf), row.want, row.name);
});

// Line numbers: balancer.lua balance 2-4, pick_route 5-7, pick_retry 8-10 (a loop on 9), log 11-13, sync 14-15.
const SOURCES: Record<string, string> = {
  'balancer.lua': ['local _M = {}', 'local function balance()', '  x()', 'end', 'local function pick_route(main)', '  y()', 'end',
    'local function pick_retry(b)', '  for i = 1, 2 do end', 'end', 'function _M.log(name)', '  z()', 'end', 'function _M.sync(name, raw)', 'end', 'local function balance_try(first_try)', 'end'].join('\n'),
  'route.lua': ['local _M = {}', 'function _M.set_policies(p)', 'end', 'function _M.of(value)', 'end'].join('\n'),
  'https_redirect.lua': ['local _M = {}', 'function _M.refresh()', 'end', 'local function covers(host)', 'end', 'function _M.redirects()', 'end'].join('\n'),
  'canary.lua': ['local _M = {}', 'function _M.compile(c)', 'end', 'local function by_header(policy, value)', 'end', 'function _M.chooses(policy)', 'end'].join('\n'),
  'round_robin.lua': ['local _M = {}', 'function _M.new(e)', 'end', 'function _M.find(self)', 'end'].join('\n'),
  'ewma.lua': ['local _M = {}', 'function _M.find(self)', 'end', 'function _M.feedback(self, key, rtt)', 'end'].join('\n'),
};

test('functionRange, traceStartLines: top-level functions in the three spellings, where their traces start', () => {
  const rows = [
    { name: 'local function', file: 'balancer.lua', fn: 'balance', want: [2, 4] },
    { name: '_M.name', file: 'route.lua', fn: 'of', want: [4, 5] },
    { name: 'missing', file: 'balancer.lua', fn: 'rewrite', want: null },
  ];
  for (const row of rows) assert.deepEqual(functionRange(SOURCES[row.file] ?? '', row.fn), row.want, row.name);
  assert.deepEqual(traceStartLines(SOURCES['balancer.lua'] ?? '', [8, 10]), [8, 9], 'pick_retry: entry and loop');
});

test('readJitTrace: traces by phase, aborts with their reason, the rest unattributed', () => {
  const rows = [
    { name: 'balance() root trace', line: '[TRACE   1 balancer.lua:2 return]', phase: 'balance', compiled: true },
    { name: 'side trace from an entry line', line: '[TRACE   2 (1/3) balancer.lua:5 -> 1]', phase: 'balance', compiled: true },
    { name: 'loop in pick_retry', line: '[TRACE  11 balancer.lua:9 loop]', phase: 'balance', compiled: true },
    { name: 'mid-body line: maybe ngx/balancer.lua, not ours', line: '[TRACE  12 balancer.lua:12 return]', phase: null, compiled: true },
    { name: 'the redirect check, full path', line: '[TRACE   3 /x/lua/resty_ingress/https_redirect.lua:6 return]', phase: 'balance', compiled: true },
    { name: 'round-robin find', line: '[TRACE   4 round_robin.lua:4 return]', phase: 'balance', compiled: true },
    { name: 'the route of $resty_route', line: '[TRACE  13 route.lua:4 return]', phase: 'balance', compiled: true },
    { name: 'a canary policy\'s choice', line: '[TRACE  14 canary.lua:6 return]', phase: 'balance', compiled: true },
    { name: 'the header rule', line: '[TRACE  15 canary.lua:4 return]', phase: 'balance', compiled: true },
    { name: 'set_policies (worker timer)', line: '[TRACE  16 route.lua:2 return]', phase: null, compiled: true },
    { name: 'compile (worker timer)', line: '[TRACE  17 canary.lua:2 return]', phase: null, compiled: true },
    { name: 'abort in the redirect check', line: '[TRACE --- https_redirect.lua:4 -- NYI: return to lower frame at https_redirect.lua:5]', phase: 'balance', compiled: false },
    { name: 'balancer chunk', line: '[TRACE   5 balancer_by_lua(nginx.conf:63):1 return]', phase: 'balance', compiled: true },
    { name: 'EWMA feedback', line: '[TRACE   6 ewma.lua:4 return]', phase: 'log', compiled: true },
    { name: 'log()', line: '[TRACE   7 balancer.lua:11 return]', phase: 'log', compiled: true },
    { name: 'sync (worker timer)', line: '[TRACE   8 balancer.lua:14 return]', phase: null, compiled: true },
    { name: 'refresh (worker timer)', line: '[TRACE   9 https_redirect.lua:2 return]', phase: null, compiled: true },
    { name: 'resty.core internals', line: '[TRACE  10 base.lua:252 return]', phase: null, compiled: true },
  ];
  for (const row of rows) {
    const report = readJitTrace(row.line, SOURCES);
    const where = { compiled: report.balance.compiled + report.log.compiled, aborted: report.balance.aborted.length + report.log.aborted.length };
    if (row.phase === null) {
      assert.deepEqual(where, { compiled: 0, aborted: 0 }, row.name);
      continue;
    }
    const phase = report[row.phase as 'balance' | 'log'];
    assert.deepEqual({ compiled: phase.compiled, aborted: phase.aborted.length }, { compiled: row.compiled ? 1 : 0, aborted: row.compiled ? 0 : 1 }, row.name);
  }
  const report = readJitTrace(rows.map((r) => r.line).join('\n'), SOURCES);
  assert.deepEqual(report.balance.aborted, ['NYI: return to lower frame at https_redirect.lua:5']);
  assert.equal(describeJit(report, ['balance']), 'balance yes (1 aborts, mostly: NYI: return to lower frame at https_redirect.lua:5)');
  assert.equal(describeJit(readJitTrace('', SOURCES), ['balance', 'log']), 'balance no, log no');
  assert.throws(() => readJitTrace('', { ...SOURCES, 'ewma.lua': '' }), /ewma\.lua has no function find/);
});

test('batchesOf: whole lines, a given number per batch', () => {
  const rows = [
    { name: 'even split', log: 'a\nb\nc\nd\n', per: 2, want: ['a\nb\n', 'c\nd\n'] },
    { name: 'remainder', log: 'a\nb\nc\n', per: 2, want: ['a\nb\n', 'c\n'] },
    { name: 'one batch', log: 'a\nb\n', per: 10, want: ['a\nb\n'] },
    { name: 'empty', log: '', per: 3, want: [] },
  ];
  for (const row of rows) assert.deepEqual(batchesOf(Buffer.from(row.log), row.per).map((b) => b.toString()), row.want, row.name);
});

test('pairedRatios: index by index, as many as both sides have', () => {
  const rows = [
    { name: 'pairs', a: [9, 18], b: [10, 20], want: [0.9, 0.9] },
    { name: 'a round of one side missing', a: [9, 18, 27], b: [10, 20], want: [0.9, 0.9] },
    { name: 'more references than rounds', a: [9], b: [10, 20], want: [0.9] },
    { name: 'none', a: [], b: [10], want: [] },
  ];
  for (const row of rows) assert.deepEqual(pairedRatios(row.a, row.b), row.want, row.name);
});

test('newestDump: the highest dump part of the directory, and its summary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'resty-dumps-'));
  try {
    const dump = (name: string, total: number): void => writeFileSync(join(dir, name), `version: 1\nevents: Ir\nsummary: ${total}\n`);
    dump('cg.41.1', 100);
    dump('cg.41.2', 200);
    dump('cg.41.10', 1000);
    // The file callgrind writes at exit has no part number: never taken for a dump.
    dump('cg.41', 5);
    assert.deepEqual(newestDump(dir), { total: 1000, timers: 0, file: join(dir, 'cg.41.10') });
    writeFileSync(join(dir, 'cg.41.11'), 'events: Ir\n');
    assert.throws(() => newestDump(dir), /cg\.41\.11 has no summary line/);
    rmSync(join(dir, 'cg.41.11'));
    for (const name of ['cg.41', 'cg.41.1', 'cg.41.2', 'cg.41.10']) rmSync(join(dir, name));
    assert.throws(() => newestDump(dir), /no callgrind dump/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('timerInstructions: the inclusive cost of every call to ngx_event_expire_timers in a dump', () => {
  const dump = (calls: string): string => `events: Ir\nsummary: 9000\n\nfn=ngx_process_events_and_timers\n0 300\n${calls}0 20\n`;
  const call = (cost: string): string => `cfn=ngx_event_expire_timers\ncalls=3723 0 \n${cost}\n`;
  const rows = [
    { name: 'one call site (as callgrind writes it)', dump: dump(call('0 7145837')), want: 7145837 },
    { name: 'two call sites add up', dump: dump(`${call('0 100')}cfn=ngx_epoll_process_events\ncalls=1 0 \n0 50\n${call('+2 25')}`), want: 125 },
    { name: 'no timer expired', dump: dump('cfn=ngx_epoll_process_events\ncalls=1 0 \n0 50\n'), want: 0 },
    { name: 'its own cost (fn=) is not a call', dump: 'fn=ngx_event_expire_timers\n0 40\n', want: 0 },
  ];
  for (const row of rows) assert.equal(timerInstructions(row.dump), row.want, row.name);
  assert.throws(() => timerInstructions(dump(call('garbage'))), /no cost line after the call to ngx_event_expire_timers/);
});

test('singleProcess: the master serves, or a clear error when the line is gone', () => {
  assert.equal(singleProcess('daemon off;\nmaster_process on;\npid x;\n'), 'daemon off;\nmaster_process off;\npid x;\n');
  assert.throws(() => singleProcess('daemon off;\n'), /no "master_process on;" line/);
});
