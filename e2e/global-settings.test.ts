// E2E: the controller's ConfigMap (--configmap) is live — editing it with
// kubectl re-renders NGINX (HSTS max-age, redirect code) — and the HTTPS
// listener negotiates HTTP/2.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { appManifest, ingressManifest, request, startStack, waitFor, waitForResponse, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);

function configMap(data: Record<string, string>): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data }]);
}

/** curl over TLS with HTTP/2 offered: the protocol it spoke and the response headers. */
async function curlHttps(port: number, host: string): Promise<{ protocol: string; status: number; headers: string }> {
  const { stdout } = await run('curl', ['-sk', '--http2', '--resolve', `${host}:${port}:127.0.0.1`, '-D', '-', '-o', '/dev/null', `https://${host}:${port}/`]);
  const match = /^(HTTP\/[\d.]+) (\d{3})/mu.exec(stdout);
  return { protocol: match?.[1] ?? '', status: Number(match?.[2]), headers: stdout.toLowerCase() };
}

test('the ConfigMap re-renders NGINX when edited; HTTPS speaks HTTP/2', async (t) => {
  const cert = createSelfSignedCertificate({ dnsNames: ['site.test'] });
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const secret = yamlDocuments([{
    apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name: 'site-tls', namespace: 'default' },
    data: { 'tls.crt': b64(cert.cert), 'tls.key': b64(cert.key) },
  }]);
  const ingress = ingressManifest({ name: 'site', host: 'site.test', paths: [{ path: '/', service: 'web' }] })
    .replace(/^spec:\n/mu, 'spec:\n  tls:\n    - hosts: [site.test]\n      secretName: site-tls\n');
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', 'default/resty-config'] } });
  const port = controller.ports.https;
  await cluster.apply([configMap({}), appManifest({ name: 'web', replicas: 1 }), secret, ingress].join('---\n'));
  await waitForResponse(controller.http, { host: 'site.test' }, (r) => r.status === 308);

  await t.test('HTTPS negotiates HTTP/2 and carries the default HSTS', async () => {
    const res = await waitFor('HTTPS 200', async () => { const r = await curlHttps(port, 'site.test'); return r.status === 200 ? r : undefined; });
    assert.equal(res.protocol, 'HTTP/2');
    assert.match(res.headers, /strict-transport-security: max-age=31536000/u);
  });

  await t.test('kubectl apply of the ConfigMap changes HSTS and the redirect code', async () => {
    const reloads = controller.reloadCount();
    await cluster.apply(configMap({ 'hsts-max-age': '600', 'http-redirect-code': '301' }));
    const res = await waitFor('HSTS max-age=600', async () => {
      const r = await curlHttps(port, 'site.test');
      return /strict-transport-security: max-age=600\b/u.test(r.headers) ? r : undefined;
    }, { timeoutMs: 10_000 });
    assert.equal(res.status, 200);
    // A plain-HTTP request may still reach an old worker (its keep-alive connection) for a moment.
    await waitFor('the redirect code is 301', async () => (await request(controller.http, { host: 'site.test', path: '/a?b=1' })).status === 301 || undefined, { timeoutMs: 10_000 });
    // "NGINX reloaded" is logged once the old workers are gone, which can be after a new one answered.
    await waitFor('a global setting is static: NGINX reloaded', async () => controller.reloadCount() > reloads || undefined);
  });

  await t.test('an invalid value keeps the default and is reported', async () => {
    await cluster.apply(configMap({ 'hsts-max-age': 'forever' }));
    await controller.waitForLog((l) => JSON.stringify(l).includes('hsts-max-age'), { timeoutMs: 10_000 });
    const res = await waitFor('HSTS back to the default', async () => {
      const r = await curlHttps(port, 'site.test');
      return /strict-transport-security: max-age=31536000/u.test(r.headers) ? r : undefined;
    }, { timeoutMs: 10_000 });
    assert.equal(res.status, 200, 'traffic keeps flowing');
  });
});
