// E2E: `satisfy` any | all across an allow list and authentication, as
// ingress-nginx users write it, applied with the real kubectl and checked with
// curl through the real NGINX from two loopback source addresses (curl
// --interface 127.0.0.x; the allow lists name 127.0.0.2, 127.0.0.3 is outside).
// The allow list is NGINX's allow/deny, external auth is auth_request, basic
// auth is Lua's access handler: all three are access-phase checks that satisfy
// combines. With `any`: inside the list, no credentials needed; outside, the
// credentials decide (401 / 200). With `all` or unset: outside 403 whatever the
// credentials, inside 401 without and 200 with. The client-certificate check
// runs in the rewrite phase, so an allow list with `satisfy any` never lifts it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { makeClientCaFixture, type ClientCertFiles } from '../lua/test/client-ca-fixture.ts';
import { appManifest, ingressManifest, startStack, waitFor, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);
const PREFIX = 'nginx.ingress.kubernetes.io';
const INSIDE = '127.0.0.2';
const OUTSIDE = '127.0.0.3';
// `openssl passwd -apr1 -salt 8sFt66rZ s3cret`
const APR1 = '$apr1$8sFt66rZ$5f4dG6uJPUDcCdyvCGEji1';
const b64 = (text: string): string => Buffer.from(text).toString('base64');

/** An auth service on loopback: 200 for the token "good" in X-Token, 401 otherwise. */
async function authService(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.headers['x-token'] === 'good') res.writeHead(200).end('ok');
    else res.writeHead(401, { 'WWW-Authenticate': 'Bearer realm="ext"' }).end('no');
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { server, port: (server.address() as AddressInfo).port };
}

function guarded(name: string, host: string, annotations: Record<string, string>, tlsSecret?: string): string {
  const manifest = ingressManifest({
    name, host, paths: [{ path: '/', service: 'web' }],
    annotations: Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value])),
  });
  // The harness's YAML writer leaves on/off bare, which kubectl's YAML 1.1 reads as booleans.
  const quoted = manifest.replace(/: (on|off)$/gmu, ': "$1"');
  return tlsSecret === undefined ? quoted
    : quoted.replace(/^spec:\n/mu, `spec:\n  tls:\n    - hosts: [${host}]\n      secretName: ${tlsSecret}\n`);
}

interface Answer { readonly status: number; readonly body: string }

/** GET / on `host` over plain HTTP from source address `from`, with extra curl arguments. */
async function curlHttp(http: string, from: string, host: string, extra: readonly string[] = []): Promise<Answer> {
  const { stdout } = await run('curl', ['-s', '--max-time', '5', '-o', '-', '-w', '\n%{http_code}', '--interface', from, '-H', `Host: ${host}`, ...extra, `${http}/`]);
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
}

/** GET / on `host` over HTTPS from `from`, presenting `cert` when given. */
async function curlHttps(port: number, from: string, host: string, cert?: ClientCertFiles): Promise<Answer> {
  const args = ['-sk', '--max-time', '5', '--interface', from, '--resolve', `${host}:${port}:127.0.0.1`, '-o', '-', '-w', '\n%{http_code}', `https://${host}:${port}/`];
  if (cert) args.push('--cert', cert.certPath, '--key', cert.keyPath);
  const { stdout } = await run('curl', args);
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
}

test('satisfy any | all across allow lists, basic auth, external auth and client certificates', async (t) => {
  const certs = await makeClientCaFixture();
  t.after(() => rmSync(certs.dir, { recursive: true, force: true }));
  const auth = await authService();
  t.after(() => {
    auth.server.closeAllConnections();
    auth.server.close();
  });
  const { cluster, controller } = await startStack(t);
  const http = controller.http;
  const basic = { 'auth-type': 'basic', 'auth-secret': 'admins', 'auth-realm': 'admins', 'allowlist-source-range': `${INSIDE}/32` };
  const served = createSelfSignedCertificate({ dnsNames: ['cert-any.test'] });
  await cluster.apply([
    appManifest({ name: 'web', replicas: 1 }),
    yamlDocuments([{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'admins', namespace: 'default' }, type: 'Opaque', stringData: { auth: `alice:${APR1}\n` } }]),
    yamlDocuments([{ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name: 'served-tls' }, data: { 'tls.crt': b64(served.cert), 'tls.key': b64(served.key) } }]),
    yamlDocuments([{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'client-ca' }, data: { 'ca.crt': b64(certs.ca.cert) } }]),
    guarded('basic-any', 'basic-any.test', { ...basic, satisfy: 'any' }),
    guarded('basic-all', 'basic-all.test', { ...basic, satisfy: 'all' }),
    guarded('basic-unset', 'basic-unset.test', basic),
    guarded('ext-any', 'ext-any.test', { 'auth-url': `http://127.0.0.1:${auth.port}/verify`, 'allowlist-source-range': INSIDE, satisfy: 'any' }),
    guarded('cert-any', 'cert-any.test', {
      'auth-tls-secret': 'client-ca', 'auth-tls-verify-client': 'on', 'allowlist-source-range': INSIDE, satisfy: 'any',
    }, 'served-tls'),
  ].join('---\n'));
  await waitFor('the basic-auth Ingresses are live', async () => {
    for (const host of ['basic-any.test', 'basic-all.test', 'basic-unset.test']) {
      if ((await curlHttp(http, OUTSIDE, host, ['-u', 'alice:s3cret'])).status === 404) return undefined;
    }
    return true;
  }, { timeoutMs: 30_000 });

  await t.test('basic auth + allow list, satisfy any: inside needs no credentials, outside the credentials decide', async () => {
    const rows = [
      { name: 'inside, no credentials', from: INSIDE, args: [], want: 200 },
      { name: 'inside, a wrong password', from: INSIDE, args: ['-u', 'alice:wrong'], want: 200 },
      { name: 'outside, no credentials', from: OUTSIDE, args: [], want: 401 },
      { name: 'outside, a wrong password', from: OUTSIDE, args: ['-u', 'alice:wrong'], want: 401 },
      { name: 'outside, good credentials', from: OUTSIDE, args: ['-u', 'alice:s3cret'], want: 200 },
    ];
    for (const row of rows) {
      const answer = await curlHttp(http, row.from, 'basic-any.test', row.args);
      assert.equal(answer.status, row.want, row.name);
      if (row.want === 200) assert.match(answer.body, /"host":"basic-any\.test"/u, `${row.name}: the echo pod answered`);
    }
  });

  await t.test('basic auth + allow list, satisfy all or unset: outside 403 even with credentials, inside 401 then 200', async () => {
    for (const host of ['basic-all.test', 'basic-unset.test']) {
      const rows = [
        { name: 'outside, no credentials', from: OUTSIDE, args: [], want: 403 },
        { name: 'outside, good credentials', from: OUTSIDE, args: ['-u', 'alice:s3cret'], want: 403 },
        { name: 'inside, no credentials', from: INSIDE, args: [], want: 401 },
        { name: 'inside, a wrong password', from: INSIDE, args: ['-u', 'alice:wrong'], want: 401 },
        { name: 'inside, good credentials', from: INSIDE, args: ['-u', 'alice:s3cret'], want: 200 },
      ];
      for (const row of rows) assert.equal((await curlHttp(http, row.from, host, row.args)).status, row.want, `${host}: ${row.name}`);
    }
  });

  await t.test('external auth + allow list, satisfy any: inside 200 without a token, outside 401 without and 200 with', async () => {
    const rows = [
      { name: 'inside, no token', from: INSIDE, args: [], want: 200 },
      { name: 'outside, no token', from: OUTSIDE, args: [], want: 401 },
      { name: 'outside, a bad token', from: OUTSIDE, args: ['-H', 'X-Token: bad'], want: 401 },
      { name: 'outside, the good token', from: OUTSIDE, args: ['-H', 'X-Token: good'], want: 200 },
    ];
    for (const row of rows) assert.equal((await curlHttp(http, row.from, 'ext-any.test', row.args)).status, row.want, row.name);
  });

  await t.test('client certificates + allow list, satisfy any: the list admitting the client never lifts the certificate check', async () => {
    const port = controller.ports.https;
    await waitFor('cert-any.test verifies client certificates', async () => ((await curlHttps(port, INSIDE, 'cert-any.test', certs.alice)).status === 200 ? true : undefined), { timeoutMs: 20_000 });
    const rows = [
      { name: 'inside, the CA\'s certificate', from: INSIDE, cert: certs.alice, want: 200 },
      { name: 'inside, no certificate', from: INSIDE, cert: undefined, want: 400 },
      { name: 'inside, another CA\'s certificate', from: INSIDE, cert: certs.mallory, want: 400 },
      { name: 'outside, the CA\'s certificate (no other check passes)', from: OUTSIDE, cert: certs.alice, want: 403 },
    ];
    for (const row of rows) assert.equal((await curlHttps(port, row.from, 'cert-any.test', row.cert)).status, row.want, row.name);
  });
});
