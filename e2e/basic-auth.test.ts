// E2E: basic and digest authentication as ingress-nginx users write it
// (auth-type, auth-secret, auth-secret-type, auth-realm), applied with the real
// kubectl and checked with curl through the real NGINX: 401 with the realm's
// WWW-Authenticate, 200 with good credentials (htpasswd apr1 and bcrypt lines,
// an auth-map Secret, digest through `curl --digest`), the Authorization header
// kept from the backend, 503 and a Warning Event while the Secret is missing or
// in another namespace. Once the Ingresses are live, creating, changing and
// deleting their Secrets reloads nothing: the users are data pushed to Lua.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { appManifest, ingressManifest, request, startStack, waitFor, waitForResponse, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);
const PREFIX = 'nginx.ingress.kubernetes.io';
// `openssl passwd -apr1 -salt 8sFt66rZ s3cret`; bcrypt and htdigest's MD5 of the same password
// (Python's crypt.crypt with "$2y$05$…", hashlib.md5("carol:reports:s3cret")).
const APR1 = '$apr1$8sFt66rZ$5f4dG6uJPUDcCdyvCGEji1';
const BCRYPT = '$2y$05$abcdefghijklmnopqrstuuLK7U1u6pVRmL7L1BBM2aS35PSZnDXlK';
const NEW_APR1 = '$apr1$ab$omSBxwSV8ZyOXde7t2LWL.'; // also "s3cret", another salt: used for user "dave" after the change
const CAROL_HA1 = '0a3ec402756cef85c3b849221d5c5748';

function annotations(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [`${PREFIX}/${key}`, value]));
}

function secret(name: string, data: Record<string, string>, namespace = 'default'): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, type: 'Opaque', stringData: data }]);
}

interface Curl {
  readonly status: number;
  readonly challenge: string;
  /** The echo pod's view of the Authorization header ("" = none reached it). */
  readonly upstreamAuthorization: string;
  /** The Host the echo pod saw ("" = no echo reply): shows the header above was read from a real reply. */
  readonly upstreamHost: string;
}

/** One curl through NGINX with this Host; `user` as curl's -u, `digest` for --digest. */
async function curl(http: string, host: string, path: string, user?: string, digest = false): Promise<Curl> {
  const args = ['-s', '-w', '\n%{http_code}\n%header{www-authenticate}', '-H', `Host: ${host}`];
  if (user !== undefined) args.push('-u', user);
  if (digest) args.push('--digest');
  const { stdout } = await run('curl', [...args, `${http}${path}`]);
  const lines = stdout.split('\n');
  const challenge = lines.pop() ?? '';
  const status = Number(lines.pop());
  const body = lines.join('\n');
  let upstreamAuthorization = '';
  let upstreamHost = '';
  try {
    const echo = JSON.parse(body) as { headers?: Record<string, string> };
    upstreamAuthorization = echo.headers?.authorization ?? '';
    upstreamHost = echo.headers?.host ?? '';
  } catch {
    // not the echo pod's JSON (an error page)
  }
  return { status, challenge, upstreamAuthorization, upstreamHost };
}

test('basic and digest authentication, Secret changes without reloads', async (t) => {
  const { cluster, controller } = await startStack(t);
  const before = controller.logs().length;
  await cluster.apply([
    appManifest({ name: 'web', replicas: 1 }),
    secret('admins', { auth: `alice:${APR1}\nbob:${BCRYPT}\n` }),
    secret('reporters', { carol: `reports:${CAROL_HA1}` }),
    secret('elsewhere', { auth: `alice:${APR1}\n` }, 'kube-system'),
    ingressManifest({
      name: 'admin', host: 'auth.test', paths: [{ path: '/admin', service: 'web' }],
      annotations: annotations({ 'auth-type': 'basic', 'auth-secret': 'admins', 'auth-realm': 'Authentication Required - admin' }),
    }),
    ingressManifest({
      name: 'reports', host: 'auth.test', paths: [{ path: '/reports', service: 'web' }],
      annotations: annotations({ 'auth-type': 'digest', 'auth-secret': 'reporters', 'auth-secret-type': 'auth-map', 'auth-realm': 'reports' }),
    }),
    ingressManifest({
      name: 'late', host: 'auth.test', paths: [{ path: '/late', service: 'web' }],
      annotations: annotations({ 'auth-type': 'basic', 'auth-secret': 'late-users', 'auth-realm': 'late' }),
    }),
    ingressManifest({
      name: 'cross', host: 'auth.test', paths: [{ path: '/cross', service: 'web' }],
      annotations: annotations({ 'auth-type': 'basic', 'auth-secret': 'kube-system/elsewhere' }),
    }),
    ingressManifest({ name: 'public', host: 'auth.test', paths: [{ path: '/', service: 'web' }] }),
  ].join('---\n'));
  await waitForResponse(controller.http, { host: 'auth.test', path: '/' }, (r) => r.status === 200);
  await waitForResponse(controller.http, { host: 'auth.test', path: '/admin' }, (r) => r.status === 401);
  await controller.waitForReload(before);
  const reloads = controller.reloadCount();

  await t.test('basic: 401 with the realm, 200 with an apr1 or a bcrypt password, no Authorization upstream', async () => {
    const rows: { name: string; user?: string; status: number }[] = [
      { name: 'no credentials', status: 401 },
      { name: 'apr1 (htpasswd -m)', user: 'alice:s3cret', status: 200 },
      { name: 'bcrypt (htpasswd -B)', user: 'bob:s3cret', status: 200 },
      { name: 'a wrong password', user: 'alice:wrong', status: 401 },
      { name: 'an unknown user', user: 'mallory:s3cret', status: 401 },
    ];
    for (const row of rows) {
      const answer = await curl(controller.http, 'auth.test', '/admin/page', row.user);
      assert.equal(answer.status, row.status, row.name);
      assert.equal(answer.challenge, row.status === 401 ? 'Basic realm="Authentication Required - admin"' : '', row.name);
      if (row.status === 200) assert.deepEqual([answer.upstreamHost, answer.upstreamAuthorization], ['auth.test', ''], `${row.name}: the credentials stay at NGINX`);
    }
  });

  await t.test('digest (auth-map): curl --digest gets in, a wrong password does not', async () => {
    const challenge = await curl(controller.http, 'auth.test', '/reports/q?x=1');
    assert.equal(challenge.status, 401);
    assert.match(challenge.challenge, /^Digest realm="reports", nonce="[^"]+", qop="auth", algorithm=MD5$/u);
    const good = await curl(controller.http, 'auth.test', '/reports/q?x=1', 'carol:s3cret', true);
    assert.equal(good.status, 200);
    assert.deepEqual([good.upstreamHost, good.upstreamAuthorization], ['auth.test', '']);
    assert.equal((await curl(controller.http, 'auth.test', '/reports/q', 'carol:wrong', true)).status, 401);
  });

  await t.test('a missing Secret and one in another namespace: 503 and a Warning Event each; the other paths are served', async () => {
    assert.equal((await curl(controller.http, 'auth.test', '/late', 'dave:s3cret')).status, 503);
    assert.equal((await curl(controller.http, 'auth.test', '/cross', 'alice:s3cret')).status, 503);
    assert.equal((await request(controller.http, { host: 'auth.test', path: '/' })).status, 200);
    for (const [name, text] of [['late', 'Secret default/late-users not found'], ['cross', 'Secret kube-system/elsewhere is in another namespace']] as const) {
      await waitFor(`the AuthSecretUnusable Event of ${name}`, async () =>
        ((await cluster.events(`involvedObject.name=${name},type=Warning`)).some((e) => e.reason === 'AuthSecretUnusable' && e.message.includes(text)) ? true : undefined));
    }
  });

  await t.test('the Secret appears, changes and goes: each applies within seconds, without a reload', async () => {
    await cluster.apply(secret('late-users', { auth: `dave:${NEW_APR1}\n` }));
    await waitFor('late-users applied', async () => ((await curl(controller.http, 'auth.test', '/late', 'dave:s3cret')).status === 200 ? true : undefined));
    assert.equal((await curl(controller.http, 'auth.test', '/late')).challenge, 'Basic realm="late"');
    await cluster.apply(secret('late-users', { auth: `dave:{PLAIN}changed\n` }));
    await waitFor('the new password applied', async () => ((await curl(controller.http, 'auth.test', '/late', 'dave:changed')).status === 200 ? true : undefined));
    assert.equal((await curl(controller.http, 'auth.test', '/late', 'dave:s3cret')).status, 401, 'the old password no longer works');
    await cluster.kubectlOk(['delete', 'secret', 'late-users']);
    await waitFor('the Secret gone: 503', async () => ((await curl(controller.http, 'auth.test', '/late', 'dave:changed')).status === 503 ? true : undefined));
    assert.equal(controller.reloadCount() - reloads, 0, 'Secret changes reloaded NGINX');
  });
});
