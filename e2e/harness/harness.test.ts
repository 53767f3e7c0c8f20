// Unit tests of the harness's own logic (no cluster, no controller): log
// parsing and waiting, loopback ranges and port probes, manifests, the paced
// load's accounting, and waitFor's failure message.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { parseLoopbackRange } from '../cluster/simulator/address-pool.ts';
import { loadLoop } from './load.ts';
import { collectLogs, parseLogLine } from './log-collector.ts';
import { appManifest, ingressManifest } from './manifests.ts';
import { isPortFree, randomLoopbackPool } from './network.ts';
import { waitFor } from './wait.ts';

test('parseLogLine', () => {
  const cases = [
    { name: 'pino JSON', raw: '{"level":30,"msg":"NGINX reloaded","version":"a"}', msg: 'NGINX reloaded', level: 30 },
    { name: 'plain text', raw: 'node: warning', msg: 'node: warning', level: 0 },
    { name: 'JSON that is not an object', raw: '[1,2]', msg: '[1,2]', level: 0 },
    { name: 'JSON without msg', raw: '{"level":40}', msg: '', level: 40 },
  ];
  for (const row of cases) {
    const entry = parseLogLine(row.raw);
    assert.equal(entry.msg, row.msg, row.name);
    assert.equal(entry.level, row.level, row.name);
    assert.equal(entry.raw, row.raw, row.name);
  }
});

test('collectLogs.waitFor: past lines, future lines, `from`, timeout, ended stream', async () => {
  const stream = new PassThrough();
  const logs = collectLogs([stream]);
  stream.write('{"msg":"first"}\n');
  assert.equal((await logs.waitFor(/first/, 1_000)).msg, 'first', 'a line already seen');
  const later = logs.waitFor((e) => e.msg === 'second', 1_000);
  stream.write('{"msg":"second"}\n');
  assert.equal((await later).msg, 'second', 'a line that arrives later');
  await assert.rejects(logs.waitFor(/first/, 50, 1), /timed out after 50 ms/, '`from` skips earlier lines');
  const never = logs.waitFor(/third/, 5_000);
  stream.end();
  await assert.rejects(never, /process output ended/);
});

test('randomLoopbackPool gives a /24 the simulator accepts, outside 127.0.x.x', () => {
  for (let i = 0; i < 50; i++) {
    const pool = randomLoopbackPool();
    assert.match(pool, /^127\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.\d{1,3}\.0\/24$/);
    assert.equal(parseLoopbackRange(pool).length, 254);
  }
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, port };
}

test('isPortFree', async () => {
  const { server, port } = await listen((_req, res) => res.end());
  try {
    assert.equal(await isPortFree(port), false, 'a listening port');
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  assert.equal(await isPortFree(port), true, 'the same port once closed');
});

test('loadLoop counts statuses, non-2xx and pods', async () => {
  let n = 0;
  const { server, url } = await listen((_req, res) => {
    n++;
    res.writeHead(n % 4 === 0 ? 503 : 200, { 'x-pod': n % 2 === 0 ? 'pod-b' : 'pod-a' }).end('ok');
  });
  try {
    const report = await loadLoop({ url, host: 'load.test', rate: 100, durationMs: 400 });
    // 100/s for 400 ms is 40 ticks; a very slow machine may skip some (16 in flight), never lose them.
    assert.equal(report.total + report.skipped, 40);
    assert.equal(report.statuses[503], Math.floor(report.total / 4));
    assert.equal(report.statuses[200], report.total - Math.floor(report.total / 4));
    assert.equal(report.non2xx, report.statuses[503]);
    assert.deepEqual(new Set(report.samples.map((s) => s.pod)), new Set(['pod-a', 'pod-b']));
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  await assert.rejects(loadLoop({ url, host: 'x', rate: 0, durationMs: 10 }), /rate must be/);
});

test('manifests are what kubectl apply expects', () => {
  const [deployment, service] = parseAllDocuments(appManifest({ name: 'web', replicas: 3, readyDelayMs: 50 })).map((d) => d.toJS());
  assert.equal(deployment.kind, 'Deployment');
  assert.equal(deployment.spec.replicas, 3);
  assert.deepEqual(deployment.spec.selector.matchLabels, service.spec.selector);
  assert.equal(deployment.metadata.annotations['simulator.resty-ingress.io/ready-delay-ms'], '50');
  const cases = [
    { name: 'default class', input: {}, className: 'resty' },
    { name: 'no class (legacy annotation)', input: { className: null }, className: undefined },
    { name: 'named class', input: { className: 'nginx' }, className: 'nginx' },
  ];
  for (const row of cases) {
    const ingress = parseAllDocuments(ingressManifest({ name: 'i', host: 'h.test', paths: [{ path: '/', service: 'web' }], ...row.input }))[0].toJS();
    assert.equal(ingress.spec.ingressClassName, row.className, row.name);
    assert.equal(ingress.spec.rules[0].http.paths[0].pathType, 'Prefix', row.name);
  }
});

test('waitFor returns the first defined value and explains a timeout', async () => {
  let calls = 0;
  assert.equal(await waitFor('third call', () => (++calls === 3 ? 'done' : undefined), { intervalMs: 1 }), 'done');
  await assert.rejects(waitFor('never', () => { throw new Error('still broken'); }, { timeoutMs: 30, intervalMs: 5 }), /waiting for never: still broken/);
});
