// E2E: the http-level ConfigMap keys through real kubectl, the controller and
// real NGINX, seen with curl: gzip by Accept-Encoding, Content-Type and size
// (use-gzip, gzip-types, gzip-min-length); log-format-upstream with ingress-nginx's
// $namespace $ingress_name $service_name $service_port writing the Ingress's
// values into the access log; skip-access-log-urls leaving a URI out of it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { appManifest, ingressManifest, startStack, waitFor, waitForResponse, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);
const HOST = 'shop.test';

function configMap(data: Record<string, string>): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data }]);
}

/** curl's status and lower-cased response headers (the body is thrown away: only the encoding matters). */
async function curlHeaders(base: string, path: string, acceptGzip: boolean): Promise<{ status: number; headers: string }> {
  const args = ['-s', '-o', '/dev/null', '-D', '-', '-H', `Host: ${HOST}`, ...(acceptGzip ? ['-H', 'Accept-Encoding: gzip'] : []), `${base}${path}`];
  const { stdout } = await run('curl', args);
  return { status: Number(/^HTTP\/[\d.]+ (\d{3})/mu.exec(stdout)?.[1]), headers: stdout.toLowerCase() };
}

const gzipped = (headers: string): boolean => /^content-encoding: gzip\r?$/mu.test(headers);

test('http-level ConfigMap keys: gzip, the per-location log variables, skipped URIs', async (t) => {
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', 'default/resty-config'] } });
  const base = controller.http;
  const ingress = ingressManifest({ name: 'storefront', host: HOST, paths: [{ path: '/', service: 'catalog' }] });
  await cluster.apply([configMap({}), appManifest({ name: 'catalog', replicas: 1 }), ingress].join('---\n'));
  await waitForResponse(base, { host: HOST }, (r) => r.status === 200);
  // The echo app answers JSON holding the request's path: the padding sets the response's size.
  const large = `/items?pad=${'x'.repeat(2000)}`;

  await t.test('use-gzip off (the default): nothing is compressed', async () => {
    const res = await curlHeaders(base, large, true);
    assert.equal(res.status, 200);
    assert.equal(gzipped(res.headers), false);
  });

  await t.test('use-gzip on: a listed type past gzip-min-length is compressed, only when asked for', async () => {
    await cluster.apply(configMap({ 'use-gzip': 'true' }));
    const res = await waitFor('a gzip response', async () => {
      const r = await curlHeaders(base, large, true);
      return gzipped(r.headers) ? r : undefined;
    }, { timeoutMs: 15_000 });
    assert.equal(res.status, 200);
    assert.match(res.headers, /^vary: accept-encoding\r?$/mu);
    assert.equal(gzipped((await curlHeaders(base, large, false)).headers), false, 'no Accept-Encoding: no gzip');
    // text/plain is a default type, but "ok" (2 bytes) is under the default gzip-min-length of 256.
    assert.equal(gzipped((await curlHeaders(base, '/healthz', true)).headers), false, 'under gzip-min-length');
  });

  await t.test('gzip-types and gzip-min-length decide by Content-Type and size', async () => {
    await cluster.apply(configMap({ 'use-gzip': 'true', 'gzip-types': 'text/css' }));
    await waitFor('application/json no longer compressed', async () => !gzipped((await curlHeaders(base, large, true)).headers) || undefined, { timeoutMs: 15_000 });
    await cluster.apply(configMap({ 'use-gzip': 'true', 'gzip-types': 'application/json', 'gzip-min-length': '5000' }));
    const small = `/items?pad=${'x'.repeat(3000)}`;
    const big = `/items?pad=${'x'.repeat(6000)}`;
    await waitFor('6 KB of JSON compressed again', async () => gzipped((await curlHeaders(base, big, true)).headers) || undefined, { timeoutMs: 15_000 });
    assert.equal(gzipped((await curlHeaders(base, small, true)).headers), false, '3 KB is under gzip-min-length 5000');
  });

  await t.test('log-format-upstream with $namespace $ingress_name $service_name $service_port; skip-access-log-urls', async () => {
    const format = 'ns=$namespace ing=$ingress_name svc=$service_name port=$service_port uri=$request_uri status=$status';
    await cluster.apply(configMap({ 'log-format-upstream': format, 'skip-access-log-urls': '/healthz,/ready' }));
    const accessLog = join(controller.prefix, 'access.log');
    const marker = `/marker-${Date.now()}`;
    const lines = await waitFor('the access log in the new format', async () => {
      await curlHeaders(base, '/healthz', false);
      await curlHeaders(base, marker, false);
      const found = readFileSync(accessLog, 'utf8').split('\n').filter((line) => line.includes(marker));
      return found.some((line) => line.startsWith('ns=')) ? found : undefined;
    }, { timeoutMs: 15_000 });
    assert.ok(lines.includes(`ns=default ing=storefront svc=catalog port=80 uri=${marker} status=200`), lines.join('\n'));
    // The marker is requested after each /healthz: NGINX wrote the latter's line first, had it written one.
    const all = readFileSync(accessLog, 'utf8').split('\n');
    const sinceFormat = all.slice(all.findIndex((line) => line.startsWith('ns=')));
    assert.deepEqual(sinceFormat.filter((line) => line.includes('uri=/healthz')), [], 'skip-access-log-urls');
    assert.ok(all.some((line) => line.includes('/healthz') && !line.startsWith('ns=')), 'the old format logged /healthz: the skip is the new key\'s doing');
  });
});
