// E2E client certificates (auth-tls-*) through real NGINX: CAs and client
// certificates made with openssl, Secrets and Ingresses applied with real
// kubectl, requests sent with curl presenting (or not) a certificate. As
// ingress-nginx: a certificate of the CA is accepted and the echo backend sees
// ssl-client-verify, ssl-client-subject-dn, ssl-client-issuer-dn (and
// ssl-client-cert with pass-certificate); none or another CA's is 400, or a
// 302 to auth-tls-error-page; optional lets a client without one through;
// optional_no_ca passes another CA's with its FAILED result; match-cn answers 403
// for another subject. A changed CA Secret or mode applies with no reload; a
// younger Ingress on the host is checked with the oldest one's settings and gets
// a Warning Event.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createSelfSignedCertificate, type SelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { makeClientCaFixture, type ClientCertFiles } from '../lua/test/client-ca-fixture.ts';
import { appManifest, ingressManifest, startStack, waitFor, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);
const PREFIX = 'nginx.ingress.kubernetes.io';
const b64 = (text: string): string => Buffer.from(text).toString('base64');

function tlsSecret(name: string, certificate: SelfSignedCertificate): string {
  return yamlDocuments([{
    apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name },
    data: { 'tls.crt': b64(certificate.cert), 'tls.key': b64(certificate.key) },
  }]);
}

function caSecret(name: string, ca: string): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { 'ca.crt': b64(ca) } }]);
}

function securedIngress(name: string, host: string, annotations: Record<string, string>, path = '/'): string {
  const manifest = ingressManifest({
    name, host, paths: [{ path, service: 'web' }],
    annotations: Object.fromEntries(Object.entries(annotations).map(([key, value]) => [`${PREFIX}/${key}`, value])),
  });
  // The harness's YAML writer leaves on/off bare, which kubectl's YAML 1.1 reads as booleans.
  return manifest.replace(/: (on|off)$/gmu, ': "$1"')
    .replace(/^spec:\n/mu, `spec:\n  tls:\n    - hosts: [${host}]\n      secretName: secure-tls\n`);
}

interface Answer { status: number; body: string; location: string }

async function curl(port: number, host: string, cert?: ClientCertFiles, path = '/'): Promise<Answer> {
  const args = ['-sk', '--max-time', '5', '--resolve', `${host}:${port}:127.0.0.1`, '-o', '-', '-w', '\n%{http_code} %{redirect_url}', `https://${host}:${port}${path}`];
  if (cert) args.push('--cert', cert.certPath, '--key', cert.keyPath);
  const { stdout } = await run('curl', args);
  const cut = stdout.lastIndexOf('\n');
  const [status, location] = stdout.slice(cut + 1).split(' ');
  return { status: Number(status), body: stdout.slice(0, cut), location: location ?? '' };
}

/** The headers the echo backend saw. */
function echoed(answer: Answer): Record<string, string | undefined> {
  return (JSON.parse(answer.body) as { headers: Record<string, string | undefined> }).headers;
}

test('client certificates by host: accepted, refused, optional, headers upstream, CA changes without reload', async (t) => {
  const certs = await makeClientCaFixture();
  t.after(() => rmSync(certs.dir, { recursive: true, force: true }));
  const served = createSelfSignedCertificate({ dnsNames: ['secure.test'] });
  const { cluster, controller } = await startStack(t);
  const port = controller.ports.https;
  const base = { 'auth-tls-secret': 'client-ca', 'auth-tls-verify-client': 'on', 'auth-tls-pass-certificate-to-upstream': 'true' };
  await cluster.apply([appManifest({ name: 'web' }), tlsSecret('secure-tls', served), caSecret('client-ca', certs.ca.cert),
    securedIngress('secure', 'secure.test', base)].join('---\n'));
  await waitFor('secure.test verifies client certificates', async () => (await curl(port, 'secure.test', certs.alice)).status === 200 || undefined);

  await t.test('a certificate of the CA: 200, the backend gets the ssl-client-* headers', async () => {
    const answer = await curl(port, 'secure.test', certs.alice);
    assert.equal(answer.status, 200);
    const headers = echoed(answer);
    assert.equal(headers['ssl-client-verify'], 'SUCCESS');
    assert.equal(headers['ssl-client-subject-dn'], 'O=Eng,CN=alice');
    assert.equal(headers['ssl-client-issuer-dn'], 'CN=Test Client CA');
    assert.equal(decodeURIComponent(headers['ssl-client-cert'] ?? ''), certs.alice.cert);
    assert.equal(headers['x-forwarded-proto'], 'https', 'the rest of the header list is still sent');
  });

  await t.test('no certificate, or one of another CA: 400 as NGINX answers it', async () => {
    const none = await curl(port, 'secure.test');
    assert.equal(none.status, 400);
    assert.match(none.body, /No required SSL certificate was sent/u);
    const stranger = await curl(port, 'secure.test', certs.mallory);
    assert.equal(stranger.status, 400);
    assert.match(stranger.body, /The SSL certificate error/u);
  });

  await t.test('a younger Ingress on the host: its path is checked with the oldest one\'s settings, it gets a Warning Event', async () => {
    const before = controller.logs().length;
    await cluster.apply(securedIngress('secure-admin', 'secure.test', { 'auth-tls-secret': 'other-ca', 'auth-tls-verify-client': 'optional' }, '/admin'));
    // A new path reloads; the next subtest counts reloads from here.
    await controller.waitForReload(before);
    const event = await waitFor('the ClientCertConflict Event', async () =>
      (await cluster.events('involvedObject.name=secure-admin,type=Warning')).find((e) => e.reason === 'ClientCertConflict'));
    assert.match(event.message, /already set by older Ingress default\/secure/u);
    const admin = await waitFor('/admin served', async () => {
      const answer = await curl(port, 'secure.test', certs.alice, '/admin');
      return answer.status === 200 ? answer : undefined;
    });
    assert.equal(echoed(admin)['ssl-client-verify'], 'SUCCESS');
    assert.equal(echoed(admin)['ssl-client-cert'] !== undefined, true, 'the host\'s pass-certificate applies to it');
    assert.equal((await curl(port, 'secure.test', undefined, '/admin')).status, 400, 'not optional: the oldest Ingress says on');
  });

  await t.test('optional, match-cn, error page and a changed CA apply with no reload', async () => {
    const reloads = controller.reloadCount();
    const apply = async (annotations: Record<string, string>): Promise<void> => { await cluster.apply(securedIngress('secure', 'secure.test', { ...base, ...annotations })); };

    await apply({ 'auth-tls-verify-client': 'optional' });
    const optional = await waitFor('optional', async () => {
      const answer = await curl(port, 'secure.test');
      return answer.status === 200 ? answer : undefined;
    });
    assert.equal(echoed(optional)['ssl-client-verify'], 'NONE');
    assert.equal(echoed(optional)['ssl-client-subject-dn'], undefined, 'an empty value sends no header');
    assert.equal((await curl(port, 'secure.test', certs.mallory)).status, 400);

    await apply({ 'auth-tls-verify-client': 'optional_no_ca' });
    const noCa = await waitFor('optional_no_ca', async () => {
      const answer = await curl(port, 'secure.test', certs.mallory);
      return answer.status === 200 ? answer : undefined;
    });
    assert.equal(echoed(noCa)['ssl-client-verify'], 'FAILED:unable to verify the first certificate');
    assert.equal(echoed(noCa)['ssl-client-subject-dn'], 'CN=mallory');

    await apply({ 'auth-tls-match-cn': 'CN=(bob|carol)' });
    const forbidden = await waitFor('match-cn', async () => {
      const answer = await curl(port, 'secure.test', certs.alice);
      return answer.status === 403 ? answer : undefined;
    });
    assert.equal(forbidden.body, 'client certificate unauthorized');
    await apply({ 'auth-tls-match-cn': 'CN=alice' });
    await waitFor('match-cn alice', async () => (await curl(port, 'secure.test', certs.alice)).status === 200 || undefined);

    await apply({ 'auth-tls-error-page': 'https://errors.test/cert' });
    const redirected = await waitFor('error page', async () => {
      const answer = await curl(port, 'secure.test', certs.mallory);
      return answer.status === 302 ? answer : undefined;
    });
    assert.equal(redirected.location, 'https://errors.test/cert');

    await cluster.apply(caSecret('client-ca', certs.otherCa.cert));
    await waitFor('the new CA', async () => (await curl(port, 'secure.test', certs.mallory)).status === 200 || undefined);
    assert.equal((await curl(port, 'secure.test', certs.alice)).status, 302, 'the old CA\'s client is refused now');
    assert.equal(controller.reloadCount(), reloads, 'mode, match-cn, error page and CA changes must not reload');
  });

  await t.test('a deleted CA Secret makes the host answer 403, never serve unverified', async () => {
    await cluster.kubectl(['delete', 'secret', 'client-ca']);
    await waitFor('403 without a CA', async () => (await curl(port, 'secure.test', certs.mallory)).status === 403 || undefined);
  });
});
