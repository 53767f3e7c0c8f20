// E2E backend protocols and TLS to the backend, through the real controller,
// real NGINX and real kubectl: a gRPC unary call through the ingress over TLS
// (HTTP/2 by ALPN) and over plain HTTP/2 (prior knowledge) to an h2c backend,
// and to a TLS backend (GRPCS); AUTO_HTTP follows the client's scheme; gRPC
// routes without endpoints answer UNAVAILABLE (the balancer's fallback server
// speaks HTTP/2 too); an HTTPS backend verified against the proxy-ssl-secret's
// ca.crt (the right CA passes, a wrong one is a 502 after a reload,
// proxy-ssl-verify off passes again) and shown the Secret's client certificate,
// which no other Ingress's request ever carries; a missing Secret or one of
// another namespace denies the paths (503) until allow-cross-namespace-resources;
// a FastCGI responder with fastcgi-index and the params of a ConfigMap (watched
// by name once the Ingress names it), 503 without endpoints and the
// ssl-redirect. The "pods" are servers of this process on a loopback address,
// published with a selector-less Service and an EndpointSlice.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { ingressManifest, request, startStack, waitFor, waitForResponse, yamlDocuments } from './harness/index.ts';
import { callEcho, manualServiceManifest, startFastcgiResponder, startGrpcBackend, startHttpsBackend, type GrpcEcho } from './protocol-backends.ts';

const run = promisify(execFile);
const b64 = (text: string): string => Buffer.from(text).toString('base64');

function secretManifest(name: string, data: Readonly<Record<string, string>>, type = 'Opaque'): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'Secret', type, metadata: { name, namespace: 'default' }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) }]);
}

/** kubectl reads YAML 1.1, where a bare on/off is a boolean: annotation values must be quoted. */
const quoteOnOff = (manifest: string): string => manifest.replace(/: (on|off)$/gmu, ': "$1"');

const withTls = (manifest: string, host: string, secretName: string): string =>
  manifest.replace(/^spec:\n/mu, `spec:\n  tls:\n    - hosts: [${host}]\n      secretName: ${secretName}\n`);

/** A loopback address outside the simulator's pool, for this test's own servers. */
function ownAddress(pool: string): string {
  const [, second] = pool.split('.');
  return `127.${(Number(second) + 64) % 256 || 1}.7.${10 + Math.floor(Math.random() * 200)}`;
}

test('backend protocols: gRPC over TLS and h2c, GRPCS, HTTPS with proxy-ssl verification, FastCGI', async (t) => {
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', 'default/resty-config'] } });
  const address = ownAddress(cluster.addressPool);
  const grpcCert = createSelfSignedCertificate({ dnsNames: ['grpc.test', 'grpcs.test', 'fcgi-tls.test', 'auto.test'] });
  const backendCert = createSelfSignedCertificate({ dnsNames: ['secure.test'] });
  const wrongCa = createSelfSignedCertificate({ dnsNames: ['secure.test'] });
  const clientCert = createSelfSignedCertificate({ commonName: 'ingress-client' });
  const h2c = await startGrpcBackend(address, 'grpc-pod');
  const h2 = await startGrpcBackend(address, 'grpcs-pod', backendCert);
  const https = await startHttpsBackend(address, 'https-pod', backendCert);
  const fastcgi = await startFastcgiResponder(address, 'fcgi-pod');
  t.after(async () => { await Promise.all([h2c.close(), h2.close(), https.close(), fastcgi.close()]); });

  await cluster.apply([
    manualServiceManifest('grpc', [h2c]),
    manualServiceManifest('grpcs', [h2]),
    manualServiceManifest('empty', []),
    manualServiceManifest('secure', [https]),
    manualServiceManifest('fcgi', [fastcgi]),
    yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fcgi-params', namespace: 'default' }, data: { SCRIPT_FILENAME: '/srv/www$fastcgi_script_name', APP_ENV: 'staging' } }]),
    secretManifest('grpc-tls', { 'tls.crt': grpcCert.cert, 'tls.key': grpcCert.key }, 'kubernetes.io/tls'),
    secretManifest('backend-ca', { 'ca.crt': backendCert.cert, 'tls.crt': clientCert.cert, 'tls.key': clientCert.key }),
    withTls(ingressManifest({ name: 'grpc', host: 'grpc.test', paths: [{ path: '/', service: 'grpc' }], annotations: { 'nginx.ingress.kubernetes.io/backend-protocol': 'GRPC' } }), 'grpc.test', 'grpc-tls'),
    withTls(ingressManifest({ name: 'grpcs', host: 'grpcs.test', paths: [{ path: '/', service: 'grpcs' }], annotations: { 'nginx.ingress.kubernetes.io/backend-protocol': 'GRPCS' } }), 'grpcs.test', 'grpc-tls'),
    ingressManifest({ name: 'grpc-plain', host: 'grpc-plain.test', paths: [{ path: '/', service: 'grpc' }], annotations: { 'nginx.ingress.kubernetes.io/backend-protocol': 'grpc' } }),
    withTls(ingressManifest({
      name: 'auto', host: 'auto.test', paths: [{ path: '/', service: 'secure' }],
      annotations: { 'nginx.ingress.kubernetes.io/backend-protocol': 'AUTO_HTTP', 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' },
    }), 'auto.test', 'grpc-tls'),
    ingressManifest({ name: 'empty', host: 'empty.test', paths: [{ path: '/', service: 'empty' }], annotations: { 'nginx.ingress.kubernetes.io/backend-protocol': 'GRPC' } }),
    ingressManifest({ name: 'empty-tls', host: 'empty-tls.test', paths: [{ path: '/', service: 'empty' }], annotations: { 'nginx.ingress.kubernetes.io/backend-protocol': 'GRPCS' } }),
    quoteOnOff(ingressManifest({
      name: 'secure', host: 'secure.test', paths: [{ path: '/', service: 'secure' }],
      annotations: {
        'nginx.ingress.kubernetes.io/backend-protocol': 'HTTPS',
        'nginx.ingress.kubernetes.io/proxy-ssl-secret': 'default/backend-ca',
        'nginx.ingress.kubernetes.io/proxy-ssl-verify': 'on',
        'nginx.ingress.kubernetes.io/proxy-ssl-protocols': 'TLSv1.3 TLSv1.2',
      },
    })),
    withTls(ingressManifest({
      name: 'fcgi-tls', host: 'fcgi-tls.test', paths: [{ path: '/', service: 'fcgi' }],
      annotations: { 'nginx.ingress.kubernetes.io/backend-protocol': 'FCGI' },
    }), 'fcgi-tls.test', 'grpc-tls'),
    ingressManifest({ name: 'fcgi-empty', host: 'fcgi-empty.test', paths: [{ path: '/', service: 'empty' }], annotations: { 'nginx.ingress.kubernetes.io/backend-protocol': 'FCGI' } }),
    ingressManifest({
      name: 'fcgi', host: 'fcgi.test', paths: [{ path: '/app/', service: 'fcgi' }],
      annotations: {
        'nginx.ingress.kubernetes.io/backend-protocol': 'FCGI', 'nginx.ingress.kubernetes.io/fastcgi-index': 'index.php',
        'nginx.ingress.kubernetes.io/fastcgi-params-configmap': 'fcgi-params',
      },
    }),
  ].join('---\n'));

  const tlsChannel = grpc.credentials.createSsl(Buffer.from(grpcCert.cert));
  const viaTls = (host: string): Promise<GrpcEcho> =>
    callEcho(`127.0.0.1:${controller.ports.https}`, tlsChannel, { 'grpc.ssl_target_name_override': host, 'grpc.default_authority': host }, `hello ${host}`);

  await t.test('GRPC: a unary call over TLS with HTTP/2 reaches the h2c pod with the request host and forwarded headers', async () => {
    const echo = await waitFor('a gRPC answer from grpc.test', () => viaTls('grpc.test').catch(() => undefined), { timeoutMs: 20_000, intervalMs: 200 });
    assert.equal(echo.pod, 'grpc-pod');
    assert.equal(echo.message, 'hello grpc.test');
    assert.equal(echo.authority, 'grpc.test', ':authority is the client\'s host, not "upstream_balancer"');
    assert.equal(echo.forwardedHost, 'grpc.test', 'grpc_set_header X-Forwarded-Host reached the pod');
    assert.equal(echo.realIp, '127.0.0.1');
  });

  await t.test('GRPC: plain HTTP/2 (prior knowledge) on the HTTP listener, as ingress-nginx\'s http2 on', async () => {
    const echo = await callEcho(`127.0.0.1:${controller.ports.http}`, grpc.credentials.createInsecure(), { 'grpc.default_authority': 'grpc-plain.test' }, 'plain');
    assert.equal(echo.pod, 'grpc-pod');
    assert.equal(echo.authority, 'grpc-plain.test');
    assert.equal(echo.message, 'plain');
  });

  await t.test('GRPCS: the call goes to the TLS pod over TLS', async () => {
    const echo = await waitFor('a gRPC answer from grpcs.test', () => viaTls('grpcs.test').catch(() => undefined), { timeoutMs: 20_000, intervalMs: 200 });
    assert.equal(echo.pod, 'grpcs-pod');
    assert.equal(echo.authority, 'grpcs.test');
  });

  await t.test('GRPC and GRPCS without endpoints: UNAVAILABLE from the fallback server (HTTP/2 over its socket), not a protocol error', async () => {
    await waitForResponse(controller.http, { host: 'empty.test', path: '/' }, (r) => r.status === 503);
    const err = await callEcho(`127.0.0.1:${controller.ports.http}`, grpc.credentials.createInsecure(), { 'grpc.default_authority': 'empty.test' }, 'x')
      .then(() => null, (error: unknown) => error as grpc.ServiceError);
    assert.ok(err !== null, 'the call failed');
    assert.equal(err.code, grpc.status.UNAVAILABLE, `${err.code} ${err.details}`);
    // GRPCS: the balancer turns TLS off for the fallback peer.
    await waitForResponse(controller.http, { host: 'empty-tls.test', path: '/' }, (r) => r.status === 503);
    const tlsErr = await callEcho(`127.0.0.1:${controller.ports.http}`, grpc.credentials.createInsecure(), { 'grpc.default_authority': 'empty-tls.test' }, 'x')
      .then(() => null, (error: unknown) => error as grpc.ServiceError);
    assert.equal(tlsErr?.code, grpc.status.UNAVAILABLE, `${tlsErr?.code} ${tlsErr?.details}`);
  });

  await t.test('HTTPS with proxy-ssl-verify on and the right ca.crt: 200, and the pod saw the Secret\'s client certificate', async () => {
    const res = await waitForResponse(controller.http, { host: 'secure.test', path: '/' }, (r) => r.status === 200);
    const body = JSON.parse(res.body) as { pod: string; clientCertificate: string | null; servername: string | null };
    assert.equal(body.pod, 'https-pod');
    assert.equal(body.clientCertificate, 'ingress-client');
    assert.equal(body.servername, 'secure.test', 'SNI is the request host');
    const dir = join(controller.prefix, 'backend-tls');
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    const files = readdirSync(dir);
    assert.equal(files.length, 2, `the CA file and the certificate+key file: ${files.join(', ')}`);
    for (const file of files) assert.equal(statSync(join(dir, file)).mode & 0o777, 0o600, file);
    assert.ok(!readFileSync(join(controller.prefix, 'nginx.conf'), 'utf8').includes('PRIVATE KEY'), 'no key material in nginx.conf');
  });

  await t.test('a wrong ca.crt: 502 (after the documented reload); verification off: 200 again', async () => {
    const reloads = controller.reloadCount();
    await cluster.apply(secretManifest('backend-ca', { 'ca.crt': wrongCa.cert, 'tls.crt': clientCert.cert, 'tls.key': clientCert.key }));
    await waitForResponse(controller.http, { host: 'secure.test', path: '/' }, (r) => r.status === 502);
    // A Secret change reloads (NGINX reads the CA file at load); its log line may trail the first 502.
    await waitFor('the reload of the Secret change', () => controller.reloadCount() > reloads || undefined);
    await cluster.kubectlOk(['annotate', '--overwrite', 'ingress/secure', 'nginx.ingress.kubernetes.io/proxy-ssl-verify=off']);
    await waitForResponse(controller.http, { host: 'secure.test', path: '/' }, (r) => r.status === 200);
  });

  await t.test('AUTO_HTTP: the client\'s scheme to the backend (HTTPS in, HTTPS to the TLS pod, never on another Ingress\'s client-certificate connection)', async () => {
    const port = controller.ports.https;
    const answer = await waitFor('an HTTPS answer from auto.test', async () => {
      const { stdout } = await run('curl', ['-sk', '--resolve', `auto.test:${port}:127.0.0.1`, '-w', '\n%{http_code}', `https://auto.test:${port}/`]);
      return stdout.endsWith('\n200') ? stdout : undefined;
    }, { timeoutMs: 15_000, intervalMs: 200 });
    const body = JSON.parse(answer.slice(0, answer.lastIndexOf('\n'))) as { pod: string; clientCertificate: string | null; servername: string | null };
    assert.equal(body.pod, 'https-pod');
    // The same pod is kept alive by secure.test's connections, opened with its client certificate: a
    // proxy-ssl policy has an upstream (and keepalive) of its own, so they never carry this request.
    assert.equal(body.clientCertificate, null, 'no other Ingress\'s client certificate');
    assert.equal(body.servername, 'auto.test');
    // (Plain HTTP in goes out as plain HTTP, render's rows show; here it could ride the TLS connection
    // just kept alive to the same pod: NGINX reuses by address, as in ingress-nginx's one upstream.)
  });

  await t.test('proxy-ssl-secret missing, or of another namespace: 503; allow-cross-namespace-resources lets the other namespace use it', async () => {
    await cluster.kubectlOk(['create', 'namespace', 'team-b']);
    const ssl = (namespace: string, name: string, secret: string): string => quoteOnOff(ingressManifest({
      name, namespace, host: `${name}.test`, paths: [{ path: '/', service: 'secure' }],
      annotations: { 'nginx.ingress.kubernetes.io/backend-protocol': 'HTTPS', 'nginx.ingress.kubernetes.io/proxy-ssl-secret': secret, 'nginx.ingress.kubernetes.io/proxy-ssl-verify': 'off' },
    }));
    await cluster.apply([manualServiceManifest('secure', [https], 'team-b'), ssl('default', 'nosecret', 'default/absent'), ssl('team-b', 'neighbour', 'default/backend-ca')].join('---\n'));
    await waitForResponse(controller.http, { host: 'nosecret.test', path: '/' }, (r) => r.status === 503);
    await waitForResponse(controller.http, { host: 'neighbour.test', path: '/' }, (r) => r.status === 503);
    const events = await waitFor('the neighbour\'s Event', async () => {
      const found = (await cluster.events('involvedObject.name=neighbour')).filter((e) => e.reason === 'InvalidBackendTls');
      return found.length > 0 ? found : undefined;
    });
    assert.match(events[0]?.message ?? '', /proxy-ssl-secret default\/backend-ca is not in the Ingress's namespace team-b/u);
    await cluster.apply(yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data: { 'allow-cross-namespace-resources': 'true' } }]));
    await waitForResponse(controller.http, { host: 'neighbour.test', path: '/' }, (r) => r.status === 200);
    assert.equal((await request(controller.http, { host: 'nosecret.test', path: '/' })).status, 503, 'a missing Secret stays denied');
  });

  await t.test('FCGI: the responder gets NGINX\'s stock params and fastcgi-index', async () => {
    const res = await waitForResponse(controller.http, { host: 'fcgi.test', path: '/app/?q=1' }, (r) => r.status === 200);
    const body = JSON.parse(res.body) as { pod: string; params: Record<string, string> };
    assert.equal(body.pod, 'fcgi-pod');
    assert.equal(body.params.REQUEST_METHOD, 'GET');
    assert.equal(body.params.QUERY_STRING, 'q=1');
    assert.equal(body.params.SCRIPT_NAME, '/app/index.php', 'fastcgi_index appended to a URI ending in /');
    assert.equal(body.params.HTTP_PROXY, undefined, 'HTTPoxy: no HTTP_PROXY param');
    assert.equal(body.params.HTTP_HOST, 'fcgi.test');
    assert.equal(body.params.SCRIPT_FILENAME, '/srv/www/app/index.php', 'fastcgi-params-configmap, with NGINX\'s variable expanded');
    assert.equal(body.params.APP_ENV, 'staging');
  });

  await t.test('FCGI: a change of the params ConfigMap reaches the responder (the controller watches it by name)', async () => {
    await cluster.kubectlOk(['patch', 'configmap', 'fcgi-params', '--type=merge', '-p', JSON.stringify({ data: { APP_ENV: 'production' } })]);
    await waitForResponse(controller.http, { host: 'fcgi.test', path: '/app/' }, (r) => r.status === 200 && (JSON.parse(r.body) as { params: Record<string, string> }).params.APP_ENV === 'production');
  });

  await t.test('FCGI without endpoints: 503, and plain HTTP to a host with a certificate: the redirect (the fallback servers speak no FastCGI)', async () => {
    await waitForResponse(controller.http, { host: 'fcgi-empty.test', path: '/' }, (r) => r.status === 503);
    const res = await waitForResponse(controller.http, { host: 'fcgi-tls.test', path: '/x?y=1' }, (r) => r.status === 308);
    assert.equal(res.headers.location, 'https://fcgi-tls.test/x?y=1');
  });
});
