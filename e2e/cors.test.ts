// E2E: CORS as ingress-nginx users write it (its test/e2e/annotations/cors.go
// cases), applied with the real kubectl and checked with curl through real
// NGINX: `*` on every response and every preflight answered 204 without the
// backend; an origin list and wildcard subdomains echoing the matching Origin,
// anchored (no header for a near miss), a preflight from another origin
// passed to the backend; the headers' values set by annotation; HSTS kept on
// HTTPS beside the CORS headers (a location's add_header drops inherited ones).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { appManifest, ingressManifest, startStack, waitFor, waitUntilSteady, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);
const PREFIX = 'nginx.ingress.kubernetes.io';
const HOST = 'cors.test';

interface Answer {
  readonly status: number;
  /** Response headers, names lower-cased (the last value of a repeated one). */
  readonly headers: Readonly<Record<string, string>>;
  /** The backend answered (the echo pod's x-pod header). */
  readonly backend: boolean;
}

function corsIngress(annotations: Record<string, string>): string {
  const all = { [`${PREFIX}/enable-cors`]: 'true', ...Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value])) };
  return ingressManifest({ name: 'api', host: HOST, annotations: all, paths: [{ path: '/', service: 'web' }] })
    .replace(/^spec:\n/mu, 'spec:\n  tls:\n    - hosts: [cors.test]\n      secretName: cors-tls\n');
}

/** One curl: `method` to `url` with `origin` (none when null), over HTTPS when `https` is its port. */
async function curl(url: string, method: string, origin: string | null, https?: number): Promise<Answer> {
  const args = ['-s', '-k', '-o', '/dev/null', '-D', '-', '-X', method];
  if (origin !== null) args.push('-H', `Origin: ${origin}`);
  if (https === undefined) args.push('-H', `Host: ${HOST}`, url);
  else args.push('--resolve', `${HOST}:${https}:127.0.0.1`, `https://${HOST}:${https}/`);
  const { stdout } = await run('curl', args);
  const status = Number(/^HTTP\/[\d.]+ (\d{3})/mu.exec(stdout)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of stdout.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, backend: headers['x-pod'] !== undefined };
}

test('CORS: preflights and simple requests, origin lists and wildcards', async (t) => {
  const cert = createSelfSignedCertificate({ dnsNames: [HOST] });
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const secret = yamlDocuments([{
    apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name: 'cors-tls', namespace: 'default' },
    data: { 'tls.crt': b64(cert.cert), 'tls.key': b64(cert.key) },
  }]);
  const { cluster, controller } = await startStack(t);
  const url = `${controller.http}/`;
  // ssl-redirect off: plain HTTP is served (ingress-nginx's tests send HTTP).
  const base = { 'ssl-redirect': 'false' };
  await cluster.apply([appManifest({ name: 'web', replicas: 1 }), secret, corsIngress(base)].join('---\n'));
  /** Applies the Ingress, then waits until a GET with `origin` gets `allowOrigin` (undefined: no header) from the backend. */
  const applyUntil = async (annotations: Record<string, string>, origin: string | null, allowOrigin: string | undefined): Promise<void> => {
    await cluster.apply(corsIngress({ ...base, ...annotations }));
    await waitUntilSteady(`Access-Control-Allow-Origin ${allowOrigin ?? 'absent'}`, async () => {
      const answer = await curl(url, 'GET', origin);
      return answer.status === 200 && answer.backend && answer.headers['access-control-allow-origin'] === allowOrigin;
    }, { timeoutMs: 20_000 });
  };
  await applyUntil({}, null, '*');

  await t.test('without cors-allow-origin: * on every response, with ingress-nginx\'s default headers', async () => {
    for (const origin of [null, 'https://anything.example']) {
      const answer = await curl(url, 'GET', origin);
      assert.equal(answer.status, 200);
      assert.deepEqual(
        ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-max-age'].map((name) => answer.headers[name]),
        ['*', 'true', 'GET, PUT, POST, DELETE, PATCH, OPTIONS', 'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization', '1728000'],
      );
      assert.equal(answer.headers['access-control-expose-headers'], undefined);
    }
  });

  await t.test('a preflight is answered 204 by NGINX with the headers; the backend never sees it', async () => {
    const answer = await curl(url, 'OPTIONS', 'https://anything.example');
    assert.equal(answer.status, 204);
    assert.equal(answer.backend, false);
    assert.equal(answer.headers['access-control-allow-origin'], '*');
    assert.equal(answer.headers['access-control-allow-methods'], 'GET, PUT, POST, DELETE, PATCH, OPTIONS');
  });

  await t.test('HTTPS: the CORS headers and HSTS both (a location\'s add_header would drop the inherited one)', async () => {
    const answer = await waitFor('HTTPS answers', async () => {
      const a = await curl(url, 'GET', 'https://anything.example', controller.ports.https);
      return a.status === 200 ? a : undefined;
    });
    assert.equal(answer.headers['access-control-allow-origin'], '*');
    assert.match(answer.headers['strict-transport-security'] ?? '', /^max-age=\d+/u);
  });

  await t.test('an origin list and wildcards: the matching Origin echoed, anchored at both ends', async () => {
    await applyUntil({ 'cors-allow-origin': 'https://origin.cors.com:8080, http://*.origin.cors.com, tauri://localhost:3000' }, 'https://origin.cors.com:8080', 'https://origin.cors.com:8080');
    const rows: { origin: string; want: string | undefined }[] = [
      { origin: 'https://origin.cors.com:8080', want: 'https://origin.cors.com:8080' },
      { origin: 'HTTPS://Origin.Cors.Com:8080', want: 'HTTPS://Origin.Cors.Com:8080' },
      { origin: 'http://foo.origin.cors.com', want: 'http://foo.origin.cors.com' },
      { origin: 'http://bar-foo.origin.cors.com', want: 'http://bar-foo.origin.cors.com' },
      { origin: 'tauri://localhost:3000', want: 'tauri://localhost:3000' },
      { origin: 'https://origin.cors.com', want: undefined },
      { origin: 'https://origin.cors.com:80801', want: undefined },
      { origin: 'http://origin.cors.com', want: undefined },
      { origin: 'http://a.b.origin.cors.com', want: undefined },
      { origin: 'http://foo.origin.cors.com.evil.example', want: undefined },
      { origin: 'http://evilhttps://origin.cors.com:8080', want: undefined },
    ];
    for (const row of rows) {
      const answer = await curl(url, 'GET', row.origin);
      assert.equal(answer.status, 200, row.origin);
      assert.equal(answer.headers['access-control-allow-origin'], row.want, row.origin);
      assert.equal(answer.headers['access-control-allow-methods'] !== undefined, row.want !== undefined, `${row.origin}: the other headers with it`);
    }
    assert.equal((await curl(url, 'GET', null)).headers['access-control-allow-origin'], undefined, 'no Origin, no header');
  });

  await t.test('with a list: a matching preflight is answered 204, another goes to the backend', async () => {
    const matching = await curl(url, 'OPTIONS', 'http://foo.origin.cors.com');
    assert.deepEqual([matching.status, matching.backend, matching.headers['access-control-allow-origin']], [204, false, 'http://foo.origin.cors.com']);
    const other = await curl(url, 'OPTIONS', 'https://evil.example');
    assert.deepEqual([other.status, other.backend, other.headers['access-control-allow-origin']], [200, true, undefined]);
  });

  await t.test('methods, headers, expose headers, credentials and max-age as annotated', async () => {
    await cluster.apply(corsIngress({
      ...base, 'cors-allow-origin': 'https://app.example.com', 'cors-allow-methods': 'POST, GET', 'cors-allow-headers': 'X-Custom, Content-Type',
      'cors-expose-headers': 'X-CustomResponseHeader, X-CustomSecondHeader', 'cors-allow-credentials': 'false', 'cors-max-age': '600',
    }));
    const answer = await waitFor('the new CORS headers', async () => {
      const a = await curl(url, 'OPTIONS', 'https://app.example.com');
      return a.headers['access-control-max-age'] === '600' ? a : undefined;
    }, { timeoutMs: 20_000 });
    assert.equal(answer.status, 204);
    assert.deepEqual(
      ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-expose-headers'].map((name) => answer.headers[name]),
      ['https://app.example.com', undefined, 'POST, GET', 'X-Custom, Content-Type', 'X-CustomResponseHeader, X-CustomSecondHeader'],
    );
  });

  await t.test('an invalid cors-allow-origin falls back to * (ingress-nginx\'s default), with a warning', async () => {
    await applyUntil({ 'cors-allow-origin': 'https://app.example.com/path' }, 'https://other.example', '*');
    await controller.waitForLog((l) => JSON.stringify(l).includes('cors-allow-origin'), { timeoutMs: 10_000 });
  });
});
