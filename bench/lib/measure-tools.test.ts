// The measuring tools the rolling benchmark added: CPU time by process tree
// from /proc, and wrk's steady (paused) load. Real processes, real wrk.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { test } from 'node:test';
import { cpuSecondsOf, descendantsOf } from './process-cpu.ts';
import { runWrk } from './wrk.ts';

test('descendantsOf finds a grandchild; cpuSecondsOf counts its busy CPU', async () => {
  // sh (child) → node (grandchild) spinning 0.4 s of its own CPU time (not wall time: on a loaded
  // machine it may get little of it), then waiting to be killed.
  const child = spawn('sh', ['-c', `exec "${process.execPath}" -e 'while (process.cpuUsage().user < 400000); setInterval(()=>{}, 1000)'`], { stdio: 'ignore' });
  try {
    let found: number[] = [];
    for (let i = 0; i < 100 && found.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      found = descendantsOf(process.pid).filter((pid) => pid === child.pid);
    }
    assert.deepEqual(found, [child.pid], 'the exec-ed child is a descendant');
    // Bounded: it has spun its 0.4 s within 20 s even on a loaded machine.
    let used = 0;
    for (let i = 0; i < 200 && used < 0.4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      used = cpuSecondsOf([child.pid ?? -1]);
    }
    assert.ok(used >= 0.2 && used < 5, `busy child used ${used} CPU s`);
    assert.equal(cpuSecondsOf([2 ** 22 + 12345]), 0, 'a pid that does not exist counts 0');
  } finally {
    child.kill('SIGKILL');
  }
});

/** Runs `use` against a local HTTP server answering "ok", closed afterwards. */
async function withOkServer(use: (url: string) => Promise<void>): Promise<void> {
  const server = createServer((_req, res) => res.end('ok'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

test('wrk pauseMs: each connection waits between requests', () => withOkServer(async (url) => {
  const rows = [
    { name: 'one host', hosts: ['a.test'] },
    { name: 'rotating hosts', hosts: ['a.test', 'b.test'] },
  ];
  for (const row of rows) {
    const paused = await runWrk({ url, hosts: row.hosts, durationSeconds: 1, connections: 1, pauseMs: 100 });
    // 1 s at one request per ≥100 ms: at most ~10 (wrk's first request goes out at once).
    assert.ok(paused.requests >= 3 && paused.requests <= 12, `${row.name}: ${paused.requests} requests with a 100 ms pause`);
  }
  const unpaused = await runWrk({ url, hosts: ['a.test'], durationSeconds: 1, connections: 1 });
  assert.ok(unpaused.requests > 100, `no pause: ${unpaused.requests} requests`);
}));

test('wrk stop: an aborted run ends early and still reports what it did', () => withOkServer(async (url) => {
  const stop = new AbortController();
  const started = performance.now();
  const run = runWrk({ url, hosts: ['a.test'], durationSeconds: 60, connections: 1, stop: stop.signal });
  setTimeout(() => stop.abort(), 1000);
  const result = await run;
  const seconds = (performance.now() - started) / 1000;
  assert.ok(seconds < 30, `stopped after ${seconds.toFixed(1)} s, not the 60 s bound`);
  assert.ok(result.durationSeconds < 30 && result.durationSeconds > 0.5, `wrk reports the time it ran: ${result.durationSeconds} s`);
  assert.ok(result.requests > 10, `and the requests it made: ${result.requests}`);
}));
