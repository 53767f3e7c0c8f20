// E2E: the headers a backend receives and the real client address, as ingress-nginx
// v1.15.1 (nginx.tmpl, lua_ingress.lua; e2e settings/forwarded_headers.go,
// proxy_protocol.go), with the real kubectl and curl through real NGINX to the echo
// backend (which answers with the request headers it got):
// - defaults, over HTTP and HTTPS: X-Request-ID generated (and the same id in the access
//   log) or the client's, X-Forwarded-Port 443 on the HTTPS listener, X-Forwarded-Host and
//   Host as the client sent them, X-Scheme/X-Forwarded-Scheme, the client's own
//   X-Forwarded-For/-Host passed only as X-Original-Forwarded-For/-Host;
// - use-forwarded-headers: the address in X-Forwarded-For is the client's only from a peer in
//   proxy-real-ip-cidr: an allow list admits it (and the access log and X-Real-IP show it)
//   from the trusted peer and not from another, rate limits count it; the client's
//   X-Forwarded-Proto/-Port/-Host, the HTTPS redirect going to that host (without its port);
// - enable-real-ip alone: the address, not the other forwarded headers;
// - forwarded-for-header: the address from the header it names;
// - use-proxy-protocol: curl --haproxy-protocol (v1) on both listeners, and a PROXY header (v1
//   and the binary v2) naming another address, which the allow list then sees, only from a
//   trusted peer;
// - use-forwarded-headers with use-proxy-protocol: refused with a log line, the defaults serve.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { appManifest, ingressManifest, startStack, waitFor, waitUntilSteady, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);
const PREFIX = 'nginx.ingress.kubernetes.io';
const HOST = 'hdr.test';
const ACL_HOST = 'acl.test';
const LIMITED_HOST = 'rl.test';
/** A TLS host with ssl-redirect on (its default). */
const SECURE_HOST = 'sec.test';
/** The address the forwarded headers and the PROXY header name: only an allow list of it admits it. */
const FORWARDED = '10.1.2.3';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

function configMap(data: Record<string, string>): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data }]);
}

interface CurlOptions {
  readonly from?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly proxyProtocol?: boolean;
  readonly path?: string;
}

/** curl through NGINX: the status, the Location (curl's redirect_url) and, from the echo backend, the headers it received. */
async function curl(base: { url: string; https: boolean; port: number }, host: string, options: CurlOptions = {}): Promise<{ status: number; location: string; headers: Headers }> {
  const args = ['-s', '-k', '--max-time', '5', '-w', '\n%{http_code} %{redirect_url}', '--interface', options.from ?? '127.0.0.1'];
  if (options.proxyProtocol === true) args.push('--haproxy-protocol');
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`);
  const path = options.path ?? '/';
  if (base.https) args.push('--resolve', `${host}:${base.port}:127.0.0.1`, `https://${host}:${base.port}${path}`);
  else args.push('-H', `Host: ${options.headers?.Host ?? host}`, `${base.url}${path}`);
  // curl exits non-zero when NGINX closes without answering (52: a request without its PROXY header).
  const stdout = await run('curl', args).then((done) => done.stdout, (error: { stdout?: string }) => error.stdout ?? '\n000 ');
  const cut = stdout.lastIndexOf('\n');
  const [code = '000', location = ''] = stdout.slice(cut + 1).split(' ');
  let headers: Headers = {};
  try { headers = (JSON.parse(stdout.slice(0, cut)) as { headers: Headers }).headers; } catch { /* not the echo's answer */ }
  return { status: Number(code), location, headers };
}

/** The binary PROXY v2 header of a TCP over IPv4 connection (PROXY command), as AWS NLB and HAProxy's send-proxy-v2 write it. */
function proxyV2Header(client: string, destination: string, sourcePort: number, destinationPort: number): Buffer {
  const address = Buffer.alloc(12);
  Buffer.from(client.split('.').map(Number)).copy(address, 0);
  Buffer.from(destination.split('.').map(Number)).copy(address, 4);
  address.writeUInt16BE(sourcePort, 8);
  address.writeUInt16BE(destinationPort, 10);
  const head = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a, 0x21, 0x11, 0x00, address.length]);
  return Buffer.concat([head, address]);
}

/** An HTTP/1.0 request (no chunked answer) after a PROXY header (v1 text or v2 binary) naming `client`, as a load balancer sends it; the raw response. */
function viaProxyHeader(port: number, client: string, destinationPort: number, host: string, version: 1 | 2 = 1): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      const header = version === 1 ? Buffer.from(`PROXY TCP4 ${client} 192.168.0.11 56324 ${destinationPort}\r\n`) : proxyV2Header(client, '192.168.0.11', 56324, destinationPort);
      socket.write(Buffer.concat([header, Buffer.from(`GET / HTTP/1.0\r\nHost: ${host}\r\n\r\n`)]));
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error(`no answer in 5 s: ${text}`)));
  });
}

const statusOf = (raw: string): number => Number(/^HTTP\/1\.[01] (\d{3})/u.exec(raw)?.[1]);
const echoHeadersOf = (raw: string): Headers => (JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as { headers: Headers }).headers;

test('client address and the headers a backend receives', async (t) => {
  const cert = createSelfSignedCertificate({ dnsNames: [HOST, SECURE_HOST] });
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const secret = yamlDocuments([{
    apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name: 'hdr-tls', namespace: 'default' },
    data: { 'tls.crt': b64(cert.cert), 'tls.key': b64(cert.key) },
  }]);
  const site = ingressManifest({ name: 'hdr', host: HOST, annotations: { [`${PREFIX}/ssl-redirect`]: 'false' }, paths: [{ path: '/', service: 'web' }] })
    .replace(/^spec:\n/mu, `spec:\n  tls:\n    - hosts: [${HOST}]\n      secretName: hdr-tls\n`);
  const acl = ingressManifest({ name: 'acl', host: ACL_HOST, annotations: { [`${PREFIX}/allowlist-source-range`]: `${FORWARDED}/32` }, paths: [{ path: '/', service: 'web' }] });
  const secure = ingressManifest({ name: 'sec', host: SECURE_HOST, paths: [{ path: '/', service: 'web' }] })
    .replace(/^spec:\n/mu, `spec:\n  tls:\n    - hosts: [${SECURE_HOST}]\n      secretName: hdr-tls\n`);
  // A rewrite-target location of the TLS host: its HTTPS redirect is answered by Lua (route flag "e"), not the redirect server.
  const rewritten = ingressManifest({ name: 'sec-rw', host: SECURE_HOST, annotations: { [`${PREFIX}/rewrite-target`]: '/' }, paths: [{ path: '/rw', service: 'web' }] });
  const limited = ingressManifest({ name: 'rl', host: LIMITED_HOST, annotations: { [`${PREFIX}/limit-rps`]: '1' }, paths: [{ path: '/', service: 'web' }] });
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', 'default/resty-config'] } });
  const http = { url: controller.http, https: false, port: controller.ports.http };
  const https = { url: '', https: true, port: controller.ports.https };
  const accessLog = (): string[] => { try { return readFileSync(join(controller.prefix, 'access.log'), 'utf8').split('\n'); } catch { return []; } };
  await cluster.apply([configMap({}), appManifest({ name: 'web', replicas: 1 }), secret, site, acl, limited, secure, rewritten].join('---\n'));
  await waitFor('both hosts are served', async () => ((await curl(http, HOST)).status === 200 && (await curl(http, ACL_HOST)).status === 403) || undefined, { timeoutMs: 20_000 });
  /** Applies the ConfigMap, then waits until `probe` holds. */
  const configure = async (data: Record<string, string>, what: string, probe: () => Promise<boolean>): Promise<void> => {
    await cluster.apply(configMap(data));
    await waitUntilSteady(what, probe, { timeoutMs: 20_000 });
  };

  await t.test('defaults over HTTP: ingress-nginx\'s header set; the client\'s forwarded headers only as X-Original-*', async () => {
    const sent = { 'X-Forwarded-For': '6.6.6.6', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Port': '1' };
    const res = await curl(http, HOST, { headers: sent, path: '/p?q=1' });
    assert.equal(res.status, 200);
    const { 'x-request-id': id, ...rest } = Object.fromEntries(Object.entries(res.headers).filter(([name]) => name.startsWith('x-') || name === 'host'));
    assert.match(String(id), /^[0-9a-f]{32}$/u, 'a generated X-Request-ID');
    assert.deepEqual(rest, {
      host: HOST, 'x-real-ip': '127.0.0.1', 'x-forwarded-for': '127.0.0.1', 'x-forwarded-host': HOST,
      'x-forwarded-port': String(controller.ports.http), 'x-forwarded-proto': 'http', 'x-forwarded-scheme': 'http', 'x-scheme': 'http',
      'x-original-forwarded-for': '6.6.6.6', 'x-original-forwarded-host': 'evil.example',
    });
    await waitFor('the access log line carries the same id', async () => accessLog().some((line) => line.startsWith('127.0.0.1 ') && line.endsWith(` ${String(id)}`)) || undefined);
  });

  await t.test('defaults: the client\'s X-Request-ID is passed; a Host with a port is sent as the client wrote it', async () => {
    const res = await curl(http, HOST, { headers: { 'X-Request-ID': 'client-id-1', Host: `${HOST}:8080` } });
    assert.equal(res.headers['x-request-id'], 'client-id-1');
    assert.equal(res.headers.host, `${HOST}:8080`);
    assert.equal(res.headers['x-forwarded-host'], `${HOST}:8080`);
  });

  await t.test('defaults over HTTPS: X-Forwarded-Port 443 (not the listener\'s port), scheme https', async () => {
    const res = await curl(https, HOST);
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-forwarded-port'], '443');
    assert.notEqual(String(controller.ports.https), '443');
    for (const name of ['x-forwarded-proto', 'x-forwarded-scheme', 'x-scheme']) assert.equal(res.headers[name], 'https', name);
    assert.equal(res.headers['x-forwarded-host'], `${HOST}:${controller.ports.https}`);
  });

  await t.test('defaults: X-Forwarded-For is not trusted, the allow list sees the peer', async () => {
    assert.equal((await curl(http, ACL_HOST, { headers: { 'X-Forwarded-For': FORWARDED } })).status, 403);
  });

  await t.test('defaults: ssl-redirect ignores the client\'s X-Forwarded-Proto', async () => {
    await waitFor('the TLS host redirects plain HTTP', async () => (await curl(http, SECURE_HOST)).status === 308 || undefined, { timeoutMs: 20_000 });
    assert.equal((await curl(http, SECURE_HOST, { headers: { 'X-Forwarded-Proto': 'https' } })).status, 308);
  });

  await t.test('use-forwarded-headers: the forwarded address is the client\'s only from a trusted peer', async () => {
    await configure({ 'use-forwarded-headers': 'true', 'proxy-real-ip-cidr': '127.0.0.2/32', 'compute-full-forwarded-for': 'true',
      'proxy-add-original-uri-header': 'true', 'generate-request-id': 'false' }, 'the forwarded address is trusted from 127.0.0.2',
    async () => (await curl(http, ACL_HOST, { from: '127.0.0.2', headers: { 'X-Forwarded-For': FORWARDED } })).status === 200);
    assert.equal((await curl(http, ACL_HOST, { from: '127.0.0.1', headers: { 'X-Forwarded-For': FORWARDED } })).status, 403, 'an untrusted peer');
    assert.equal((await curl(http, ACL_HOST, { from: '127.0.0.2' })).status, 403, 'the trusted peer itself is not in the list');
    const sent = { 'X-Forwarded-For': FORWARDED, 'X-Forwarded-Proto': 'https', 'X-Forwarded-Port': '443', 'X-Forwarded-Host': 'public.example, inner.example' };
    const trusted = await curl(http, HOST, { from: '127.0.0.2', headers: sent, path: '/p?q=1' });
    assert.equal(trusted.headers['x-real-ip'], FORWARDED);
    assert.equal(trusted.headers['x-forwarded-for'], `${FORWARDED}, 127.0.0.2`, 'compute-full-forwarded-for: the chain and the peer');
    assert.equal(trusted.headers['x-forwarded-proto'], 'https');
    assert.equal(trusted.headers['x-scheme'], 'https');
    assert.equal(trusted.headers['x-forwarded-port'], '443');
    assert.equal(trusted.headers['x-forwarded-host'], 'public.example');
    assert.equal(trusted.headers.host, 'public.example');
    assert.equal(trusted.headers['x-original-uri'], '/p?q=1');
    assert.equal(trusted.headers['x-request-id'], undefined, 'generate-request-id false: none without the client\'s');
    await waitFor('the access log shows the forwarded address', async () => accessLog().some((line) => line.startsWith(`${FORWARDED} `) && line.includes('/p?q=1')) || undefined);
    const untrusted = await curl(http, HOST, { from: '127.0.0.1', headers: sent });
    assert.equal(untrusted.headers['x-real-ip'], '127.0.0.1');
    assert.equal(untrusted.headers['x-forwarded-for'], `${FORWARDED}, 127.0.0.1`);
  });

  await t.test('enable-real-ip alone: the trusted address, but not the other forwarded headers', async () => {
    // The previous case's config trusts 127.0.0.2 too: wait for what only this one does (no full chain).
    await configure({ 'enable-real-ip': 'true', 'proxy-real-ip-cidr': '127.0.0.2' }, 'the forwarded address alone, trusted from 127.0.0.2 (enable-real-ip)',
      async () => (await curl(http, HOST, { from: '127.0.0.2', headers: { 'X-Forwarded-For': FORWARDED } })).headers['x-forwarded-for'] === FORWARDED);
    assert.equal((await curl(http, ACL_HOST, { from: '127.0.0.2', headers: { 'X-Forwarded-For': FORWARDED } })).status, 200);
    assert.equal((await curl(http, ACL_HOST, { from: '127.0.0.1', headers: { 'X-Forwarded-For': FORWARDED } })).status, 403);
    const res = await curl(http, HOST, { from: '127.0.0.2', headers: { 'X-Forwarded-For': FORWARDED, 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'public.example' } });
    assert.equal(res.headers['x-real-ip'], FORWARDED);
    assert.equal(res.headers['x-forwarded-for'], FORWARDED, 'the address alone: compute-full-forwarded-for needs use-forwarded-headers');
    assert.equal(res.headers['x-forwarded-proto'], 'http');
    assert.equal(res.headers['x-forwarded-host'], HOST);
  });

  await t.test('forwarded-for-header: the address comes from the header it names (a CDN\'s), X-Forwarded-For is then ignored', async () => {
    await configure({ 'use-forwarded-headers': 'true', 'proxy-real-ip-cidr': '127.0.0.2', 'forwarded-for-header': 'CF-Connecting-IP' },
      'the address read from CF-Connecting-IP', async () => (await curl(http, HOST, { from: '127.0.0.2', headers: { 'CF-Connecting-IP': FORWARDED } })).headers['x-real-ip'] === FORWARDED);
    assert.equal((await curl(http, ACL_HOST, { from: '127.0.0.2', headers: { 'CF-Connecting-IP': FORWARDED } })).status, 200);
    assert.equal((await curl(http, ACL_HOST, { from: '127.0.0.2', headers: { 'X-Forwarded-For': FORWARDED } })).status, 403, 'X-Forwarded-For no longer names the client');
    assert.equal((await curl(http, ACL_HOST, { from: '127.0.0.1', headers: { 'CF-Connecting-IP': FORWARDED } })).status, 403, 'an untrusted peer');
    const res = await curl(http, HOST, { from: '127.0.0.2', headers: { 'CF-Connecting-IP': FORWARDED, 'X-Forwarded-For': '6.6.6.6' } });
    assert.equal(res.headers['x-forwarded-for'], FORWARDED);
    assert.equal(res.headers['x-original-forwarded-for'], FORWARDED, 'ingress-nginx sends the named header on as X-Original-Forwarded-For');
  });

  await t.test('use-forwarded-headers with use-proxy-protocol: refused aloud, the defaults serve', async () => {
    const from = controller.logs().length;
    await cluster.apply(configMap({ 'use-forwarded-headers': 'true', 'use-proxy-protocol': 'true' }));
    await controller.waitForLog((l) => JSON.stringify(l).includes('use-forwarded-headers and use-proxy-protocol together are not supported'), { timeoutMs: 10_000, from });
    await waitFor('the defaults serve (no PROXY header needed, X-Forwarded-For not trusted)', async () => {
      const res = await curl(http, HOST, { from: '127.0.0.2', headers: { 'X-Forwarded-For': FORWARDED } });
      return (res.status === 200 && res.headers['x-real-ip'] === '127.0.0.2') || undefined;
    }, { timeoutMs: 20_000 });
  });

  await t.test('use-forwarded-headers: ssl-redirect trusts X-Forwarded-Proto (no loop behind a TLS-terminating balancer) and goes to X-Forwarded-Host', async () => {
    // Until the old workers are gone a request may still reach one: wait until the steered redirect is seen too.
    await configure({ 'use-forwarded-headers': 'true', 'proxy-real-ip-cidr': '127.0.0.2/32' }, 'forwarded headers trusted again',
      async () => (await curl(http, SECURE_HOST, { headers: { 'X-Forwarded-Proto': 'https' } })).status === 200
        && (await curl(http, SECURE_HOST, { headers: { 'X-Forwarded-Host': 'probe.example' } })).location === 'https://probe.example/');
    assert.equal((await curl(http, SECURE_HOST, { headers: { 'X-Forwarded-Proto': 'https' } })).status, 200);
    assert.equal((await curl(http, SECURE_HOST, { headers: { 'X-Forwarded-Proto': 'http' } })).status, 308);
    assert.equal((await curl(http, SECURE_HOST)).status, 308);
    // Trusted, X-Forwarded-Host steers the redirect as in ingress-nginx (lua_ingress.lua: $best_http_host without its port).
    const steered = await curl(http, SECURE_HOST, { headers: { 'X-Forwarded-Host': 'public.example:8443, inner.example' }, path: '/a/?b=1' });
    assert.deepEqual([steered.status, steered.location], [308, 'https://public.example/a/?b=1']);
    const own = await curl(http, SECURE_HOST, { path: '/a/' });
    assert.deepEqual([own.status, own.location], [308, `https://${SECURE_HOST}/a`]);
    // The same when Lua answers the redirect (a rewrite-target location): the forwarded host, validated as a host name.
    const lua = await curl(http, SECURE_HOST, { headers: { 'X-Forwarded-Host': 'public.example:8443' }, path: '/rw/x?y=1' });
    assert.deepEqual([lua.status, lua.location], [308, 'https://public.example/rw/x?y=1']);
    const odd = await curl(http, SECURE_HOST, { headers: { 'X-Forwarded-Host': 'a b' }, path: '/rw' });
    assert.deepEqual([odd.status, odd.location], [308, `https://${SECURE_HOST}/rw`], 'not a host name: the request\'s own host');
  });

  await t.test('use-forwarded-headers: rate limits count the forwarded client, not the trusted peer', async () => {
    // limit-rps 1: burst 5, then 503 until the excess drains (1 a second); a second client through the
    // same peer has a counter of its own only if the limit key is the forwarded address.
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await curl(http, LIMITED_HOST, { from: '127.0.0.2', headers: { 'X-Forwarded-For': '10.9.0.1' } })).status);
    assert.ok(statuses.includes(503), `one client past its burst is limited: ${statuses.join(' ')}`);
    assert.equal((await curl(http, LIMITED_HOST, { from: '127.0.0.2', headers: { 'X-Forwarded-For': '10.9.0.2' } })).status, 200, 'another client through the same peer');
  });

  await t.test('use-proxy-protocol: curl --haproxy-protocol on both listeners; the PROXY header (v1 and v2) names the client', async () => {
    await configure({ 'use-proxy-protocol': 'true' }, 'the listeners expect PROXY headers',
      async () => (await curl(http, HOST, { proxyProtocol: true, from: '127.0.0.3' })).status === 200);
    const plain = await curl(http, HOST, { proxyProtocol: true, from: '127.0.0.3' });
    assert.equal(plain.headers['x-forwarded-for'], '127.0.0.3');
    assert.equal(plain.headers['x-forwarded-port'], String(controller.ports.http));
    assert.equal(plain.headers['x-forwarded-proto'], 'http');
    const tls = await curl(https, HOST, { proxyProtocol: true, from: '127.0.0.3' });
    assert.equal(tls.status, 200);
    assert.equal(tls.headers['x-forwarded-port'], '443', 'the PROXY header\'s destination is the HTTPS listener');
    assert.equal(tls.headers['x-forwarded-proto'], 'https');
    assert.notEqual((await curl(http, HOST)).status, 200, 'a request without a PROXY header is not served');
    const raw = await viaProxyHeader(controller.ports.http, FORWARDED, 443, HOST);
    assert.equal(statusOf(raw), 200, raw);
    const seen = echoHeadersOf(raw);
    assert.equal(seen['x-forwarded-for'], FORWARDED);
    assert.equal(seen['x-real-ip'], FORWARDED);
    assert.equal(seen['x-forwarded-port'], '443');
    assert.equal(seen['x-forwarded-proto'], 'https', 'ingress-nginx: PROXY destination port 443 means https');
    assert.equal(statusOf(await viaProxyHeader(controller.ports.http, FORWARDED, 80, ACL_HOST)), 200, 'the allow list sees the PROXY header\'s client');
    const rawV2 = await viaProxyHeader(controller.ports.http, FORWARDED, 443, HOST, 2);
    assert.equal(statusOf(rawV2), 200, rawV2);
    const seenV2 = echoHeadersOf(rawV2);
    assert.equal(seenV2['x-forwarded-for'], FORWARDED, 'PROXY v2: the binary header names the client');
    assert.equal(seenV2['x-real-ip'], FORWARDED);
    assert.equal(seenV2['x-forwarded-port'], '443');
    assert.equal(seenV2['x-forwarded-proto'], 'https');
    assert.equal(statusOf(await viaProxyHeader(controller.ports.http, FORWARDED, 80, ACL_HOST, 2)), 200, 'the allow list sees the PROXY v2 header\'s client');
  });

  await t.test('use-proxy-protocol: the PROXY header\'s address only from a peer in proxy-real-ip-cidr', async () => {
    await configure({ 'use-proxy-protocol': 'true', 'proxy-real-ip-cidr': '10.0.0.0/8' }, 'loopback peers are no longer trusted',
      async () => statusOf(await viaProxyHeader(controller.ports.http, FORWARDED, 80, ACL_HOST)) === 403);
    const seen = echoHeadersOf(await viaProxyHeader(controller.ports.http, FORWARDED, 80, HOST));
    assert.equal(seen['x-real-ip'], '127.0.0.1');
    assert.equal(statusOf(await viaProxyHeader(controller.ports.http, FORWARDED, 80, ACL_HOST, 2)), 403, 'nor from a PROXY v2 header');
  });
});
