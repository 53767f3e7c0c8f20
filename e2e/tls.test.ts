// E2E TLS: certificates from kubernetes.io/tls Secrets applied with real
// kubectl are served by SNI (seen by curl --resolve and openssl s_client),
// a rotated Secret is served with NO reload, a deleted one falls back to the
// default certificate with no reload, plain HTTP gets the 308 redirect
// keeping host, path and query, and HTTPS responses carry HSTS.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createSelfSignedCertificate, type SelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { appManifest, ingressManifest, request, startStack, waitFor, waitForResponse, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);

function tlsSecret(name: string, certificate: SelfSignedCertificate): string {
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  return yamlDocuments([{
    apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name },
    data: { 'tls.crt': b64(certificate.cert), 'tls.key': b64(certificate.key) },
  }]);
}

/** The serial openssl s_client sees for `servername` (uppercase hex, as Node prints it). */
async function servedSerial(port: number, servername: string): Promise<string> {
  const { stdout } = await run('bash', ['-c',
    `openssl s_client -connect 127.0.0.1:${port} -servername ${servername} </dev/null 2>/dev/null | openssl x509 -noout -serial`]);
  const match = /serial=([0-9A-F]+)/u.exec(stdout);
  if (!match) throw new Error(`no certificate from s_client for ${servername}: ${stdout}`);
  return match[1];
}

/** curl --resolve: status and headers of an HTTPS request by name. */
async function curlHttps(port: number, host: string, path: string): Promise<{ status: number; headers: string }> {
  const { stdout } = await run('curl', ['-sk', '--http2', '--resolve', `${host}:${port}:127.0.0.1`, '-D', '-', '-o', '/dev/null', `https://${host}:${port}${path}`]);
  const status = Number(/^HTTP\/\S+ (\d{3})/mu.exec(stdout)?.[1]);
  return { status, headers: stdout.toLowerCase() };
}

const serialsMatch = (want: string) => (got: string): boolean => got.replace(/^0+/u, '') === want.replace(/^0+/u, '');

test('TLS from Secrets by SNI, rotated and removed without reloads', async (t) => {
  const shop = createSelfSignedCertificate({ dnsNames: ['shop.test'] });
  const rotated = createSelfSignedCertificate({ dnsNames: ['shop.test'] });
  const fallback = createSelfSignedCertificate({ dnsNames: ['fallback.test'] });
  const { cluster, controller } = await startStack(t, { controller: { args: ['--default-ssl-certificate', 'default/fallback-tls'] } });
  const port = controller.ports.https;
  const shopIngress = ingressManifest({ name: 'shop', host: 'shop.test', paths: [{ path: '/', service: 'web' }] })
    .replace(/^spec:\n/mu, 'spec:\n  tls:\n    - hosts: [shop.test]\n      secretName: shop-tls\n');
  assert.match(shopIngress, /secretName: shop-tls/u, 'the tls section went into the manifest');
  await cluster.apply([appManifest({ name: 'web' }), tlsSecret('fallback-tls', fallback), tlsSecret('shop-tls', shop), shopIngress].join('---\n'));
  await waitForResponse(controller.http, { host: 'shop.test', path: '/' }, (r) => r.status === 308);

  await t.test('SNI picks the Secret\'s certificate; unknown names get the default one', async () => {
    const served = await waitFor('the shop certificate', async () => {
      const serial = await servedSerial(port, 'shop.test');
      return serialsMatch(shop.serial)(serial) ? serial : undefined;
    });
    assert.ok(served);
    assert.ok(serialsMatch(fallback.serial)(await servedSerial(port, 'unknown.test')));
    const res = await curlHttps(port, 'shop.test', '/hello?x=1');
    assert.equal(res.status, 200);
  });

  await t.test('plain HTTP: 308 to https with the same host, path and query; HTTPS answers carry HSTS', async () => {
    const res = await request(controller.http, { host: 'shop.test', path: '/cart/items?id=7&q=a%20b' });
    assert.equal(res.status, 308);
    assert.equal(res.headers.location, `https://shop.test:${port}/cart/items?id=7&q=a%20b`);
    assert.equal(res.headers['strict-transport-security'], undefined, 'no HSTS over plain HTTP');
    const https = await curlHttps(port, 'shop.test', '/');
    assert.match(https.headers, /strict-transport-security: max-age=31536000; includesubdomains/u);
  });

  await t.test('rotation with kubectl apply: new serial, reload count unchanged', async () => {
    const reloads = controller.reloadCount();
    await cluster.apply(tlsSecret('shop-tls', rotated));
    await waitFor('the rotated certificate', async () => serialsMatch(rotated.serial)(await servedSerial(port, 'shop.test')) || undefined);
    assert.equal(controller.reloadCount(), reloads);
  });

  await t.test('deleting the Secret: the default certificate, a Warning Event, no reload', async () => {
    const reloads = controller.reloadCount();
    await cluster.kubectlOk(['delete', 'secret', 'shop-tls']);
    await waitFor('the default certificate', async () => serialsMatch(fallback.serial)(await servedSerial(port, 'shop.test')) || undefined);
    assert.equal(controller.reloadCount(), reloads);
    const event = await waitFor('a Warning Event naming the Secret', async () =>
      (await cluster.events('involvedObject.name=shop,type=Warning')).find((e) => /shop-tls/u.test(e.message)));
    assert.match(event.message, /Secret not found/u);
    assert.doesNotMatch(JSON.stringify(controller.logs()), /PRIVATE KEY|MII/u, 'no key material in the logs');
  });
});
