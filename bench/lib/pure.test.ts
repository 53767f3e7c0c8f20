// Unit tests of the benchmarks' pure parts: statistics, goal verdicts, the
// native reference transform and the jit.v reader.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeJit, readJitTrace } from '../proxy/jit-trace.ts';
import { nativeReferenceConf, withoutLuaPhase } from '../proxy/reference-conf.ts';
import { metric, type Goal } from './report.ts';
import { percentile, summarize } from './stats.ts';

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

const OURS = `http {
    init_worker_by_lua_block { require("resty_ingress.worker").init_worker() }
    upstream upstream_balancer {
        server 0.0.0.1; # placeholder, never used
        balancer_by_lua_block { require("resty_ingress.balancer").balance() }
        keepalive 320;
    }
    server {
        location / {
            rewrite_by_lua_block { require("resty_ingress.balancer").rewrite() }
            log_by_lua_block { require("resty_ingress.log_phase").log() }
            proxy_pass http://upstream_balancer;
        }
    }
}
`;

test('nativeReferenceConf: static peers, keepalive kept, no Lua on the request path', () => {
  const native = nativeReferenceConf(OURS, [{ address: '127.0.0.2', port: 81 }, { address: '127.0.0.3', port: 81 }]);
  assert.match(native, /server 127\.0\.0\.2:81 max_fails=0;\n\s+server 127\.0\.0\.3:81 max_fails=0;\n\s+keepalive 320;/);
  assert.doesNotMatch(native, /_by_lua_block/);
  assert.throws(() => nativeReferenceConf('http { }', []), /template changed/);
  assert.doesNotMatch(withoutLuaPhase(OURS, 'log'), /log_by_lua/);
  assert.match(withoutLuaPhase(OURS, 'log'), /rewrite_by_lua/);
});

test('readJitTrace: traces by phase, aborts with their reason', () => {
  const balancer = ['local _M = {}', 'function _M.rewrite()', '  x()', 'end', 'function _M.balance()', '  y()', 'end', 'function _M.log()', 'end'].join('\n');
  const output = [
    '[TRACE   1 balancer.lua:2 return]',
    '[TRACE   2 (1/3) balancer.lua:6 -> 1]',
    '[TRACE --- monitor.lua:70 -- inner loop in root trace at monitor.lua:70]',
    '[TRACE   3 store.lua:24 return]',
  ].join('\n');
  const report = readJitTrace(output, balancer);
  assert.deepEqual(report, {
    rewrite: { compiled: 1, aborted: [] },
    balance: { compiled: 1, aborted: [] },
    log: { compiled: 0, aborted: ['inner loop in root trace at monitor.lua:70'] },
  });
  assert.equal(describeJit(report), 'rewrite yes, balance yes, log no (1 aborts, mostly: inner loop in root trace at monitor.lua:70)');
});
