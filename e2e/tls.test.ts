// E2E TLS: certificates from kubernetes.io/tls Secrets applied with real
// kubectl are served by SNI (seen by curl --resolve and openssl s_client),
// a rotated Secret is served with NO reload, a deleted one falls back to the
// default certificate with no reload, plain HTTP gets the 308 redirect
// keeping host, path and query, and HTTPS responses carry HSTS. Adding TLS
// to a host already served over HTTP is no reload either (ssl-redirect is
// Lua's), no Secret's key is ever written to disk, and without
// --default-ssl-certificate unknown names get the generated one.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

const withTlsSection = (manifest: string, host: string, secretName: string): string =>
  manifest.replace(/^spec:\n/mu, `spec:\n  tls:\n    - hosts: [${host}]\n      secretName: ${secretName}\n`);

/** Files under `root` (recursively) changed since `since` (ms), at most 4 MB each; unreadable ones skipped. */
function filesChangedSince(root: string, since: number): string[] {
  const found: string[] = [];
  let entries: string[];
  try { entries = readdirSync(root); } catch { return found; }
  for (const entry of entries) {
    const path = join(root, entry);
    try {
      const stat = lstatSync(path); // not statSync: a symlink loop must not recurse forever
      if (stat.isDirectory()) found.push(...filesChangedSince(path, since));
      else if (stat.isFile() && stat.mtimeMs >= since && stat.size < 4 * 1024 * 1024) found.push(path);
    } catch {
      // removed while we looked (another test's temp file)
    }
  }
  return found;
}

test('TLS from Secrets by SNI, rotated and removed without reloads', async (t) => {
  const shop = createSelfSignedCertificate({ dnsNames: ['shop.test'] });
  const rotated = createSelfSignedCertificate({ dnsNames: ['shop.test'] });
  const fallback = createSelfSignedCertificate({ dnsNames: ['fallback.test'] });
  const blog = createSelfSignedCertificate({ dnsNames: ['blog.test'] });
  const started = Date.now();
  const { cluster, controller } = await startStack(t, { controller: { args: ['--default-ssl-certificate', 'default/fallback-tls'] } });
  const port = controller.ports.https;
  const shopIngress = withTlsSection(ingressManifest({ name: 'shop', host: 'shop.test', paths: [{ path: '/', service: 'web' }] }), 'shop.test', 'shop-tls');
  assert.match(shopIngress, /secretName: shop-tls/u, 'the tls section went into the manifest');
  await cluster.apply([appManifest({ name: 'web' }), tlsSecret('fallback-tls', fallback), tlsSecret('shop-tls', shop), shopIngress].join('---\n'));
  await waitForResponse(controller.http, { host: 'shop.test', path: '/' }, (r) => r.status === 308);
  // The 308 can come before shop.test's server is live (the catch-all redirects a host with a
  // certificate too, and certificates are pushed before the reload): wait for HTTPS to proxy.
  await waitFor('shop.test proxied over HTTPS', async () => (await curlHttps(port, 'shop.test', '/')).status === 200 || undefined);

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
    // As ingress-nginx: no port (the listener's is not what a Service exposes) unless use-port-in-redirects.
    assert.equal(res.headers.location, 'https://shop.test/cart/items?id=7&q=a%20b');
    assert.equal(res.headers['strict-transport-security'], undefined, 'no HSTS over plain HTTP');
    const https = await curlHttps(port, 'shop.test', '/');
    assert.match(https.headers, /strict-transport-security: max-age=31536000; includesubdomains/u);
  });

  await t.test('TLS added to a host served over HTTP: its certificate by SNI and the 308, no reload', async () => {
    const blogIngress = ingressManifest({ name: 'blog', host: 'blog.test', paths: [{ path: '/', service: 'web' }] });
    const beforeBlog = controller.logs().length;
    await cluster.apply(blogIngress);
    await waitForResponse(controller.http, { host: 'blog.test', path: '/' }, (r) => r.status === 200);
    // Serving can start a few ms before the controller logs the reload: count it first.
    await controller.waitForReload(beforeBlog);
    const reloads = controller.reloadCount();
    await cluster.apply([tlsSecret('blog-tls', blog), withTlsSection(blogIngress, 'blog.test', 'blog-tls')].join('---\n'));
    await waitFor('the blog certificate', async () => serialsMatch(blog.serial)(await servedSerial(port, 'blog.test')) || undefined);
    const res = await waitForResponse(controller.http, { host: 'blog.test', path: '/a?b=1' }, (r) => r.status === 308);
    assert.equal(res.headers.location, 'https://blog.test/a?b=1');
    assert.equal((await curlHttps(port, 'blog.test', '/')).status, 200);
    assert.equal(controller.reloadCount(), reloads, 'adding TLS to a served host must not reload');
  });

  await t.test('no Secret\'s private key is on disk: NGINX prefix and files written to the temp dir', async () => {
    // A line from inside each PEM key: the base64 of the Secret's data would not contain it.
    const keyLines = [shop, blog, fallback].map((c) => c.key.split('\n')[1]);
    assert.ok(keyLines.every((line) => line.length >= 60), 'a key body line to look for');
    const files = [...new Set([...filesChangedSince(dirname(controller.prefix), 0), ...filesChangedSince(tmpdir(), started)])];
    assert.ok(files.some((f) => f.endsWith(join('ssl', 'default.key'))), 'the scan sees the prefix (our placeholder key is there)');
    const holding = files.filter((file) => {
      try {
        const text = readFileSync(file, 'latin1');
        return keyLines.some((line) => text.includes(line));
      } catch {
        return false;
      }
    });
    assert.deepEqual(holding, []);
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

test('without --default-ssl-certificate, unknown names get the certificate generated at start', async (t) => {
  const { controller } = await startStack(t);
  const { stdout } = await run('openssl', ['x509', '-noout', '-serial', '-subject', '-in', join(controller.prefix, 'ssl', 'default.crt')]);
  const serial = /serial=([0-9A-F]+)/u.exec(stdout)?.[1];
  assert.ok(serial, stdout);
  assert.match(stdout, /subject=O = Acme Co, CN = Kubernetes Ingress Controller Fake Certificate/u, "named as ingress-nginx's fake certificate");
  assert.ok(serialsMatch(serial)(await servedSerial(controller.ports.https, 'unknown.test')));
});
