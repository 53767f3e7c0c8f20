// E2E: redirects and aliases as ingress-nginx v1.15.1 users write them (its
// test/e2e/annotations redirect.go, relativeredirects.go, approot.go, alias.go,
// preservetrailingslash.go cases), applied with the real kubectl and checked
// with real HTTP requests through real NGINX: the status codes and the exact
// Location values. The HTTPS redirect names no port (the controller listens on
// a random port here, as on 8443 behind a Service: neither is what clients
// reach) unless use-port-in-redirects, drops one trailing slash unless
// preserve-trailing-slash, and ignores X-Forwarded-Host. from-to-www-redirect
// takes the scheme from X-Forwarded-Proto only with use-forwarded-headers.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { appManifest, ingressManifest, request, startStack, waitFor, waitForResponse, yamlDocuments } from './harness/index.ts';

const PREFIX = 'nginx.ingress.kubernetes.io';
const run = promisify(execFile);

function annotated(name: string, host: string, path: string, annotations: Record<string, string>, tlsSecret?: string): string {
  const manifest = ingressManifest({
    name, host, paths: [{ path, service: 'web' }],
    annotations: Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value])),
  });
  return tlsSecret === undefined ? manifest : manifest.replace(/^spec:\n/mu, `spec:\n  tls:\n    - hosts: [${host}]\n      secretName: ${tlsSecret}\n`);
}

function tlsSecret(name: string, hosts: string[], certificate = createSelfSignedCertificate({ dnsNames: hosts })): string {
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  return yamlDocuments([{
    apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name, namespace: 'default' },
    data: { 'tls.crt': b64(certificate.cert), 'tls.key': b64(certificate.key) },
  }]);
}

test('redirects: permanent, temporal, relative, app-root, aliases and the HTTPS redirect', async (t) => {
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', 'default/resty-config'] } });
  const plain = { 'ssl-redirect': 'false' };
  // from-to-www-redirect over HTTPS: one certificate names the host and its twin; curl trusts only it.
  const twinCertificate = createSelfSignedCertificate({ dnsNames: ['tlstwin.test', 'www.tlstwin.test'] });
  const dir = mkdtempSync(join(tmpdir(), 'redirects-e2e-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const caFile = join(dir, 'twin.pem');
  writeFileSync(caFile, twinCertificate.cert);
  await cluster.apply([
    yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data: {} }]),
    appManifest({ name: 'web', replicas: 1 }),
    tlsSecret('secure-tls', ['secure.test']), tlsSecret('keep-tls', ['keep.test']), tlsSecret('port-tls', ['port.test']),
    annotated('perm', 'redirect.test', '/perm', { ...plain, 'permanent-redirect': 'https://www.example.com/new?x=1&y=2' }),
    annotated('perm-code', 'redirect.test', '/code', { ...plain, 'permanent-redirect': 'http://redirect.example.com', 'permanent-redirect-code': '308' }),
    annotated('temp', 'redirect.test', '/temp', {
      ...plain, 'temporal-redirect': 'https://t.example.com/x', 'temporal-redirect-code': '307', 'permanent-redirect': 'https://p.example.com',
    }),
    annotated('temp-default', 'redirect.test', '/temp-default', { ...plain, 'temporal-redirect': 'https://t.example.com', 'temporal-redirect-code': '308' }),
    annotated('rel', 'rr.test', '/something', { ...plain, 'permanent-redirect': '/new-location', 'relative-redirects': 'true' }),
    annotated('abs', 'rr-abs.test', '/something', { ...plain, 'permanent-redirect': '/new-location', 'relative-redirects': 'false' }),
    annotated('approot', 'approot.test', '/', { ...plain, 'app-root': '/foo' }),
    annotated('foo', 'foo.test', '/', { ...plain, 'server-alias': 'bar.test, conflict.test' }),
    annotated('conflict', 'conflict.test', '/conflict', plain),
    annotated('secure', 'secure.test', '/', {}, 'secure-tls'),
    annotated('keep', 'keep.test', '/', { 'preserve-trailing-slash': 'true' }, 'keep-tls'),
    annotated('port', 'port.test', '/', { 'use-port-in-redirects': 'true' }, 'port-tls'),
    annotated('forced', 'forced.test', '/', { 'force-ssl-redirect': 'true' }),
    annotated('twin', 'twin.test', '/', { ...plain, 'from-to-www-redirect': 'true' }),
    annotated('www-twin', 'www.other-twin.test', '/', { ...plain, 'from-to-www-redirect': 'true' }),
    tlsSecret('tlstwin-tls', [], twinCertificate),
    annotated('tlstwin', 'tlstwin.test', '/', { 'from-to-www-redirect': 'true' }, 'tlstwin-tls'),
  ].join('---\n'));
  // The last Ingresses are live once port.test redirects and bar.test (an alias) is served.
  await waitForResponse(controller.http, { host: 'port.test', path: '/a' }, (r) => r.status === 308);
  await waitForResponse(controller.http, { host: 'bar.test', path: '/' }, (r) => r.status === 200);
  await waitForResponse(controller.http, { host: 'www.tlstwin.test', path: '/' }, (r) => r.status === 308);
  // The plain hosts above may be served before their reload (pending hosts), and one apply can reach NGINX in
  // more than one reload: wait for the annotated hosts the first tests ask too.
  await waitForResponse(controller.http, { host: 'redirect.test', path: '/perm' }, (r) => r.status === 301);
  await waitForResponse(controller.http, { host: 'approot.test', path: '/' }, (r) => r.status === 302);

  const get = async (host: string, path: string, headers: Record<string, string> = {}): Promise<[number, string | undefined]> => {
    const res = await request(controller.http, { host, path, headers });
    const location = res.headers.location;
    return [res.status, Array.isArray(location) ? location.join(',') : location];
  };

  await t.test('permanent-redirect: 301 to the URL as written; permanent-redirect-code 308', async () => {
    assert.deepEqual(await get('redirect.test', '/perm'), [301, 'https://www.example.com/new?x=1&y=2']);
    assert.deepEqual(await get('redirect.test', '/perm/deeper?q=1'), [301, 'https://www.example.com/new?x=1&y=2']);
    assert.deepEqual(await get('redirect.test', '/code'), [308, 'http://redirect.example.com']);
  });

  await t.test('temporal-redirect wins over permanent-redirect; a code outside 300..307 is 302', async () => {
    assert.deepEqual(await get('redirect.test', '/temp'), [307, 'https://t.example.com/x']);
    assert.deepEqual(await get('redirect.test', '/temp-default'), [302, 'https://t.example.com']);
  });

  await t.test('relative-redirects: the path as Location; without it NGINX makes it absolute, with no port', async () => {
    assert.deepEqual(await get('rr.test', '/something'), [301, '/new-location']);
    assert.deepEqual(await get('rr-abs.test', '/something'), [301, 'http://rr-abs.test/new-location']);
  });

  await t.test('app-root: only / answers 302 to the application path', async () => {
    assert.deepEqual(await get('approot.test', '/'), [302, 'http://approot.test/foo']);
    assert.deepEqual(await get('approot.test', '/?x=1'), [302, 'http://approot.test/foo']);
    const [status, location] = await get('approot.test', '/foo');
    assert.equal(status, 200);
    assert.equal(location, undefined);
  });

  await t.test('server-alias: the alias is served, another host is 404, a real host wins over an alias (Warning Event)', async () => {
    assert.equal((await request(controller.http, { host: 'foo.test', path: '/' })).status, 200);
    const alias = await request(controller.http, { host: 'bar.test', path: '/x' });
    assert.equal(alias.status, 200);
    assert.ok(alias.pod !== null, 'the backend answered the alias');
    assert.equal((await request(controller.http, { host: 'other.test', path: '/' })).status, 404);
    // conflict.test is its own host: its server answers, with its own paths only.
    assert.equal((await request(controller.http, { host: 'conflict.test', path: '/conflict' })).status, 200);
    assert.equal((await request(controller.http, { host: 'conflict.test', path: '/' })).status, 404);
    const event = await waitFor('the ServerAliasConflict Event', async () =>
      (await cluster.events('involvedObject.name=foo,type=Warning')).find((e) => e.reason === 'ServerAliasConflict'), { timeoutMs: 20_000 });
    assert.match(event.message, /conflict\.test/u);
  });

  await t.test('the HTTPS redirect: no port, one trailing slash dropped, never X-Forwarded-Host', async () => {
    assert.deepEqual(await get('secure.test', '/a/'), [308, 'https://secure.test/a']);
    assert.deepEqual(await get('secure.test', '/'), [308, 'https://secure.test']);
    assert.deepEqual(await get('secure.test', '/a/?b=1'), [308, 'https://secure.test/a/?b=1']);
    assert.deepEqual(await get('secure.test', '/a', { 'X-Forwarded-Host': 'evil.test' }), [308, 'https://secure.test/a']);
    assert.deepEqual(await get('forced.test', '/a/?q=1'), [308, 'https://forced.test/a/?q=1']);
    assert.deepEqual(await get('forced.test', '/a/', { 'X-Forwarded-Host': 'evil.test' }), [308, 'https://forced.test/a']);
  });

  await t.test('preserve-trailing-slash keeps it; use-port-in-redirects names the HTTPS port', async () => {
    assert.deepEqual(await get('keep.test', '/a/'), [308, 'https://keep.test/a/']);
    assert.deepEqual(await get('keep.test', '/'), [308, 'https://keep.test/']);
    assert.deepEqual(await get('port.test', '/a/'), [308, `https://port.test:${controller.ports.https}/a`]);
  });

  await t.test('from-to-www-redirect: both directions, 308, no port, one trailing slash dropped', async () => {
    assert.deepEqual(await get('www.twin.test', '/foo?a=1'), [308, 'http://twin.test/foo?a=1']);
    assert.deepEqual(await get('www.twin.test', '/foo/'), [308, 'http://twin.test/foo']);
    assert.equal((await request(controller.http, { host: 'twin.test', path: '/foo' })).status, 200);
    assert.deepEqual(await get('other-twin.test', '/'), [308, 'http://www.other-twin.test']);
    assert.equal((await request(controller.http, { host: 'www.other-twin.test', path: '/' })).status, 200);
  });

  await t.test('from-to-www-redirect behind a TLS-terminating balancer (use-forwarded-headers): X-Forwarded-Proto is the scheme', async () => {
    assert.deepEqual(await get('www.twin.test', '/foo', { 'X-Forwarded-Proto': 'https' }), [308, 'http://twin.test/foo'], 'not trusted by default');
    await cluster.apply(yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data: { 'use-forwarded-headers': 'true' } }]));
    await waitFor('X-Forwarded-Proto trusted', async () => (await get('www.twin.test', '/foo', { 'X-Forwarded-Proto': 'https' }))[1] === 'https://twin.test/foo' || undefined, { timeoutMs: 20_000 });
    assert.deepEqual(await get('www.twin.test', '/foo'), [308, 'http://twin.test/foo'], 'without the header: the request\'s own scheme');
    await cluster.apply(yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data: {} }]));
    await waitFor('the defaults again', async () => (await get('www.twin.test', '/foo', { 'X-Forwarded-Proto': 'https' }))[1] === 'http://twin.test/foo' || undefined, { timeoutMs: 20_000 });
  });

  await t.test('from-to-www-redirect over HTTPS: the twin is served the Ingress\'s certificate (curl trusts only it) and redirected', async () => {
    const port = controller.ports.https;
    const curl = async (host: string): Promise<string> => (await run('curl', [
      '-s', '--cacert', caFile, '--resolve', `${host}:${port}:127.0.0.1`, '-o', '/dev/null', '-w', '%{http_code} %{redirect_url}', `https://${host}:${port}/a/?b=1`,
    ])).stdout;
    const twin = await waitFor('the twin\'s certificate', async () => {
      try {
        return await curl('www.tlstwin.test');
      } catch {
        return undefined;
      }
    }, { timeoutMs: 20_000 });
    // curl's redirect_url resolves the Location against the request's URL: the Location names no port.
    assert.equal(twin, '308 https://tlstwin.test/a/?b=1');
    assert.equal((await curl('tlstwin.test')).split(' ')[0], '200');
  });
});
