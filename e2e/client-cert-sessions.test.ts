// E2E client certificates and TLS session resumption through real NGINX, real
// kubectl and `openssl s_client -sess_out/-sess_in`, over TLS 1.2 and TLS 1.3.
// A resumed handshake runs no certificate verification: it carries the result
// recorded when the session was made. So when the CA Secret changes (pushed to
// Lua, no reload), a session made under the old CA must not resume: its client
// makes a full handshake and the new CA refuses it. Under an unchanged CA
// sessions keep resuming. Whether a handshake resumed is read from s_client's
// message trace: a resumed one has no server Certificate message.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { makeClientCaFixture, type ClientCertFiles } from '../lua/test/client-ca-fixture.ts';
import { appManifest, ingressManifest, startStack, waitFor, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);
const b64 = (text: string): string => Buffer.from(text).toString('base64');
const HOST = 'secure.test';
const VERSIONS = ['-tls1_2', '-tls1_3'] as const;

interface Answer { resumed: boolean; status: number; body: string }

/** One connection, one HTTP/1.0 request (NGINX closes after the answer); `session` names the files. */
function connect(port: number, version: string, cert: ClientCertFiles, session: { out?: string; in?: string }, trace: string): Promise<Answer> {
  // Quiet: TLS 1.3's session printouts would interleave with the answer; the trace goes to its own file.
  const args = ['s_client', '-connect', `127.0.0.1:${port}`, version, '-servername', HOST, '-quiet', '-msg', '-msgfile', trace,
    '-cert', cert.certPath, '-key', cert.keyPath];
  if (session.out) args.push('-sess_out', session.out);
  if (session.in) args.push('-sess_in', session.in);
  return new Promise((resolve, reject) => {
    const child = spawn('openssl', args, { stdio: ['pipe', 'pipe', 'ignore'], timeout: 10_000 });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      const head = /^HTTP\/1\.1 (\d{3}) [\s\S]*?\r\n\r\n([\s\S]*)$/u.exec(out);
      const resumed = !/^<<< .*Handshake .*, Certificate$/mu.test(readFileSync(trace, 'utf8'));
      resolve({ resumed, status: head ? Number(head[1]) : 0, body: head ? head[2] : out });
    });
    child.stdin.end(`GET / HTTP/1.0\r\nHost: ${HOST}\r\n\r\n`);
  });
}

async function curlStatus(port: number, cert: ClientCertFiles): Promise<number> {
  const { stdout } = await run('curl', ['-sk', '--max-time', '5', '--resolve', `${HOST}:${port}:127.0.0.1`, '-o', '/dev/null', '-w', '%{http_code}',
    '--cert', cert.certPath, '--key', cert.keyPath, `https://${HOST}:${port}/`]);
  return Number(stdout);
}

const caSecret = (ca: string): string => yamlDocuments([{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'client-ca' }, data: { 'ca.crt': b64(ca) } }]);

test('a TLS session made under a CA that changed is not resumed; under an unchanged CA it is', async (t) => {
  const certs = await makeClientCaFixture();
  t.after(() => rmSync(certs.dir, { recursive: true, force: true }));
  const served = createSelfSignedCertificate({ dnsNames: [HOST] });
  const { cluster, controller } = await startStack(t);
  const port = controller.ports.https;
  const ingress = ingressManifest({
    name: 'secure', host: HOST, paths: [{ path: '/', service: 'web' }],
    annotations: { 'nginx.ingress.kubernetes.io/auth-tls-secret': 'client-ca' },
  }).replace(/^spec:\n/mu, `spec:\n  tls:\n    - hosts: [${HOST}]\n      secretName: secure-tls\n`);
  await cluster.apply([
    appManifest({ name: 'web' }),
    yamlDocuments([{ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name: 'secure-tls' },
      data: { 'tls.crt': b64(served.cert), 'tls.key': b64(served.key) } }]),
    caSecret(certs.ca.cert), ingress,
  ].join('---\n'));
  await waitFor('secure.test verifies client certificates', async () => (await curlStatus(port, certs.alice)) === 200 || undefined);
  const file = (name: string): string => join(certs.dir, name);

  await t.test('under the same CA a session resumes with the result it verified', async () => {
    for (const version of VERSIONS) {
      const full = await connect(port, version, certs.alice, { out: file(`alice${version}`) }, file('trace'));
      assert.equal(full.resumed, false, version);
      assert.equal(full.status, 200, full.body);
      const again = await connect(port, version, certs.alice, { in: file(`alice${version}`) }, file('trace'));
      assert.equal(again.resumed, true, `${version}: the session resumes`);
      assert.equal(again.status, 200, again.body);
      assert.match(again.body, /"ssl-client-subject-dn":"O=Eng,CN=alice"/u);
    }
  });

  await t.test('after the CA Secret changes (no reload) the old sessions are not resumed: refused', async () => {
    const reloads = controller.reloadCount();
    await cluster.apply(caSecret(certs.otherCa.cert));
    await waitFor('the new CA', async () => (await curlStatus(port, certs.mallory)) === 200 || undefined);
    for (const version of VERSIONS) {
      const again = await connect(port, version, certs.alice, { in: file(`alice${version}`) }, file('trace'));
      assert.equal(again.resumed, false, `${version}: a session verified under the old CA must not resume`);
      assert.equal(again.status, 400, again.body);
      assert.match(again.body, /The SSL certificate error/u);
      // A session made under the new CA resumes.
      await connect(port, version, certs.mallory, { out: file(`mallory${version}`) }, file('trace'));
      const mallory = await connect(port, version, certs.mallory, { in: file(`mallory${version}`) }, file('trace'));
      assert.equal(mallory.resumed, true, version);
      assert.equal(mallory.status, 200, mallory.body);
    }
    assert.equal(controller.reloadCount(), reloads, 'a CA change must not reload');
  });
});
