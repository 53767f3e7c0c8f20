// E2E: rate limits as ingress-nginx users write them, applied with the real
// kubectl and checked with curl through the real NGINX: limit-rps answered
// with the ConfigMap's limit-req-status-code once the burst is spent (a
// bounded request loop), an address of limit-allowlist never limited (curl
// --interface 127.0.0.2 against 127.0.0.1), limit-connections with parallel
// slow requests (the ConfigMap's limit-conn-status-code), limit-rate throttling a download
// and limit-rate-after letting its first KiB through at full speed; a changed
// limit applies (with a reload: NGINX's limit_req_zone fixes its rate at load).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { appManifest, ingressManifest, startStack, waitForResponse, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);
const PREFIX = 'nginx.ingress.kubernetes.io';

function configMap(data: Record<string, string>): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data }]);
}

function limitedIngress(name: string, annotations: Record<string, string>): string {
  const all = Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value]));
  return ingressManifest({ name, host: `${name}.test`, annotations: all, paths: [{ path: '/', service: 'web' }] });
}

interface CurlResult {
  readonly status: number;
  readonly seconds: number;
  readonly bytes: number;
}

/** One curl through NGINX from `from` (a loopback address), bounded by --max-time. */
async function curl(http: string, host: string, options: { path?: string; from?: string; headers?: string[] } = {}): Promise<CurlResult> {
  const args = ['-s', '-o', '/dev/null', '--max-time', '20', '-w', '%{http_code} %{time_total} %{size_download}', '-H', `Host: ${host}`];
  if (options.from !== undefined) args.push('--interface', options.from);
  for (const header of options.headers ?? []) args.push('-H', header);
  const { stdout } = await run('curl', [...args, `${http}${options.path ?? '/'}`]);
  const [status, seconds, bytes] = stdout.trim().split(' ').map(Number);
  return { status: status ?? 0, seconds: seconds ?? 0, bytes: bytes ?? 0 };
}

test('rate limits: requests, allowlist, connections, bandwidth', async (t) => {
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', 'default/resty-config'] } });
  await cluster.apply([
    configMap({ 'limit-req-status-code': '429', 'limit-conn-status-code': '509' }),
    appManifest({ name: 'web', replicas: 1 }),
    limitedIngress('rps', { 'limit-rps': '2', 'limit-burst-multiplier': '1', 'limit-allowlist': '127.0.0.2' }),
    limitedIngress('conns', { 'limit-connections': '2' }),
    limitedIngress('slow', { 'limit-rate': '1' }),
    limitedIngress('fast', { 'limit-rate': '1', 'limit-rate-after': '16' }),
  ].join('---\n'));
  for (const host of ['rps.test', 'conns.test', 'slow.test', 'fast.test']) {
    await waitForResponse(controller.http, { host, path: '/healthz' }, (r) => r.status === 200);
  }
  // Let the probes' requests leave the rps window (2 per second, burst 2).
  await new Promise((resolve) => setTimeout(resolve, 1500));

  await t.test('limit-rps: past rate + burst, the ConfigMap\'s limit-req-status-code (429)', async () => {
    const started = Date.now();
    const seen: number[] = [];
    for (let i = 0; i < 20; i += 1) seen.push((await curl(controller.http, 'rps.test', { from: '127.0.0.1' })).status);
    const seconds = (Date.now() - started) / 1000;
    const passed = seen.filter((s) => s === 200).length;
    assert.equal(seen[0], 200, `the first request passes: ${seen.join(' ')}`);
    assert.ok(seen.every((s) => s === 200 || s === 429), `only 200 and 429: ${seen.join(' ')}`);
    // One request, the burst of 2, and 2 per second of the loop (plus one for rounding).
    assert.ok(passed <= 1 + 2 + Math.ceil(2 * seconds) + 1, `${passed} passed in ${seconds} s: ${seen.join(' ')}`);
    assert.ok(seen.includes(429), `some were limited: ${seen.join(' ')}`);
  });

  await t.test('limit-allowlist: 127.0.0.2 is never limited, while 127.0.0.1 still is', async () => {
    const allowed: number[] = [];
    for (let i = 0; i < 20; i += 1) allowed.push((await curl(controller.http, 'rps.test', { from: '127.0.0.2' })).status);
    assert.deepEqual(allowed, new Array<number>(20).fill(200));
    const limited: number[] = [];
    for (let i = 0; i < 10; i += 1) limited.push((await curl(controller.http, 'rps.test', { from: '127.0.0.1' })).status);
    assert.ok(limited.includes(429), `127.0.0.1 is counted: ${limited.join(' ')}`);
  });

  await t.test('limit-connections: 2 of 4 parallel slow requests pass, the others get the ConfigMap\'s limit-conn-status-code (509)', async () => {
    const answers = await Promise.all([0, 1, 2, 3].map(async (i) => {
      // Staggered a little so the first two are surely in flight when the others arrive.
      await new Promise((resolve) => setTimeout(resolve, i < 2 ? 0 : 300));
      return (await curl(controller.http, 'conns.test', { path: '/?sleep=1500', from: '127.0.0.1' })).status;
    }));
    assert.deepEqual(answers, [200, 200, 509, 509]);
    // Once they are done, the count is free again.
    assert.equal((await curl(controller.http, 'conns.test', { from: '127.0.0.1' })).status, 200);
  });

  await t.test('limit-rate throttles a 7 KiB response to 1 KiB/s; limit-rate-after 16 lets it through', async () => {
    // The echo pod sends back the request's headers: a 7,000-byte one makes the response that long.
    const headers = [`X-Pad: ${'x'.repeat(7000)}`];
    const fast = await curl(controller.http, 'fast.test', { headers });
    assert.equal(fast.status, 200);
    assert.ok(fast.bytes > 7000, `${fast.bytes} bytes`);
    assert.ok(fast.seconds < 1.5, `within limit-rate-after: ${fast.seconds} s`);
    const slow = await curl(controller.http, 'slow.test', { headers });
    assert.equal(slow.status, 200);
    assert.ok(slow.bytes > 7000, `${slow.bytes} bytes`);
    // NGINX lets rate × (seconds + 1) bytes out: 7 KiB at 1 KiB/s take at least 5 s.
    assert.ok(slow.seconds >= 4, `throttled: ${slow.seconds} s for ${slow.bytes} bytes`);
  });

  await t.test('a changed limit applies with a reload (NGINX fixes a zone\'s rate at load)', async () => {
    const logged = controller.logs().length;
    const reloads = controller.reloadCount();
    await cluster.apply(limitedIngress('rps', { 'limit-rps': '1000' }));
    await controller.waitForReload(logged);
    assert.ok(controller.reloadCount() > reloads);
    const seen: number[] = [];
    for (let i = 0; i < 20; i += 1) seen.push((await curl(controller.http, 'rps.test', { from: '127.0.0.1' })).status);
    assert.deepEqual(seen, new Array<number>(20).fill(200));
  });
});
