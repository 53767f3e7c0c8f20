// E2E: the controller's ConfigMap (--configmap) is live — editing it with
// kubectl re-renders NGINX (HSTS max-age, redirect code) — and the HTTPS
// listener negotiates HTTP/2. ssl-session-ticket-key: the controller writes the
// key file, and a session ticket outlives a reload (NGINX's own keys do not).
// ssl-dh-param: a Secret's dhparam.pem lets a client that offers only a DHE
// cipher connect.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { connect } from 'node:tls';
import { promisify } from 'node:util';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { appManifest, ingressManifest, request, startStack, waitFor, waitForResponse, waitUntilSteady, yamlDocuments } from './harness/index.ts';

const run = promisify(execFile);

function configMap(data: Record<string, string>): string {
  return yamlDocuments([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'resty-config', namespace: 'default' }, data }]);
}

/** curl over TLS with HTTP/2 offered: the protocol it spoke and the response headers. */
async function curlHttps(port: number, host: string): Promise<{ protocol: string; status: number; headers: string }> {
  const { stdout } = await run('curl', ['-sk', '--http2', '--resolve', `${host}:${port}:127.0.0.1`, '-D', '-', '-o', '/dev/null', `https://${host}:${port}/`]);
  const match = /^(HTTP\/[\d.]+) (\d{3})/mu.exec(stdout);
  return { protocol: match?.[1] ?? '', status: Number(match?.[2]), headers: stdout.toLowerCase() };
}

/** A TLS 1.2 handshake offering `session`: whether NGINX resumed it, and the session (ticket) it gave. */
function handshake(port: number, host: string, session?: Buffer): Promise<{ reused: boolean; session: Buffer | undefined }> {
  return new Promise((resolve, reject) => {
    let ticket: Buffer | undefined;
    const socket = connect({ port, host: '127.0.0.1', servername: host, rejectUnauthorized: false, maxVersion: 'TLSv1.2', ...(session ? { session } : {}) });
    socket.setTimeout(5000, () => socket.destroy(new Error('no handshake in 5 s')));
    socket.once('session', (value: Buffer) => { ticket = value; });
    socket.once('secureConnect', () => {
      const reused = socket.isSessionReused();
      setImmediate(() => { socket.end(); resolve({ reused, session: ticket ?? session }); });
    });
    socket.once('error', reject);
  });
}

test('the ConfigMap re-renders NGINX when edited; HTTPS speaks HTTP/2', async (t) => {
  const cert = createSelfSignedCertificate({ dnsNames: ['site.test'] });
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const secret = yamlDocuments([{
    apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name: 'site-tls', namespace: 'default' },
    data: { 'tls.crt': b64(cert.cert), 'tls.key': b64(cert.key) },
  }]);
  const ingress = ingressManifest({ name: 'site', host: 'site.test', paths: [{ path: '/', service: 'web' }] })
    .replace(/^spec:\n/mu, 'spec:\n  tls:\n    - hosts: [site.test]\n      secretName: site-tls\n');
  const { cluster, controller } = await startStack(t, { controller: { args: ['--configmap', 'default/resty-config'] } });
  const port = controller.ports.https;
  await cluster.apply([configMap({}), appManifest({ name: 'web', replicas: 1 }), secret, ingress].join('---\n'));
  await waitForResponse(controller.http, { host: 'site.test' }, (r) => r.status === 308);

  await t.test('HTTPS negotiates HTTP/2 and carries the default HSTS', async () => {
    const res = await waitFor('HTTPS 200', async () => { const r = await curlHttps(port, 'site.test'); return r.status === 200 ? r : undefined; });
    assert.equal(res.protocol, 'HTTP/2');
    assert.match(res.headers, /strict-transport-security: max-age=31536000/u);
  });

  await t.test('kubectl apply of the ConfigMap changes HSTS and the redirect code', async () => {
    const reloads = controller.reloadCount();
    await cluster.apply(configMap({ 'hsts-max-age': '600', 'http-redirect-code': '301' }));
    const res = await waitFor('HSTS max-age=600', async () => {
      const r = await curlHttps(port, 'site.test');
      return /strict-transport-security: max-age=600\b/u.test(r.headers) ? r : undefined;
    }, { timeoutMs: 10_000 });
    assert.equal(res.status, 200);
    // A plain-HTTP request may still reach an old worker (its keep-alive connection) for a moment.
    await waitFor('the redirect code is 301', async () => (await request(controller.http, { host: 'site.test', path: '/a?b=1' })).status === 301 || undefined, { timeoutMs: 10_000 });
    // "NGINX reloaded" is logged once the old workers are gone, which can be after a new one answered.
    await waitFor('a global setting is static: NGINX reloaded', async () => controller.reloadCount() > reloads || undefined);
  });

  await t.test('an invalid value keeps the default and is reported', async () => {
    await cluster.apply(configMap({ 'hsts-max-age': 'forever' }));
    await controller.waitForLog((l) => JSON.stringify(l).includes('hsts-max-age'), { timeoutMs: 10_000 });
    const res = await waitFor('HSTS back to the default', async () => {
      const r = await curlHttps(port, 'site.test');
      return /strict-transport-security: max-age=31536000/u.test(r.headers) ? r : undefined;
    }, { timeoutMs: 10_000 });
    assert.equal(res.status, 200, 'traffic keeps flowing');
  });

  await t.test('ssl-session-ticket-key: the controller writes the key file; a ticket outlives a reload, as it does not without the key', async () => {
    const key = randomBytes(80);
    /**
     * Applies `data` and waits until only workers of that configuration answer: its HSTS max-age
     * (`age`, a static setting) marks it. A reload count alone could be met by a reload still
     * running for an earlier change, and a ticket taken from that configuration's NGINX keys then
     * does not outlive the next reload.
     */
    const applyServed = async (data: Record<string, string>, age: number): Promise<void> => {
      const reloads = controller.reloadCount();
      await cluster.apply(configMap({ ...data, 'hsts-max-age': String(age) }));
      await waitUntilSteady(`HSTS max-age=${age}`, async () => new RegExp(`max-age=${age}\\b`, 'u').test((await curlHttps(port, 'site.test')).headers), { timeoutMs: 15_000 });
      await waitFor('NGINX reloaded', async () => controller.reloadCount() > reloads || undefined, { timeoutMs: 15_000 });
    };
    /** Applies `data` with tickets on (no session cache: only a ticket resumes), then a ticket; then a reload; then whether the ticket resumes. */
    const ticketAfterReload = async (data: Record<string, string>, ages: readonly [number, number]): Promise<boolean> => {
      const settings = { 'ssl-session-tickets': 'true', 'ssl-session-cache': 'false', ...data };
      await applyServed(settings, ages[0]);
      const first = await waitFor('a session ticket', async () => (await handshake(port, 'site.test')).session);
      assert.equal((await handshake(port, 'site.test', first)).reused, true, 'resumed before the reload');
      await applyServed(settings, ages[1]);
      return (await handshake(port, 'site.test', first)).reused;
    };
    assert.equal(await ticketAfterReload({}, [602, 603]), false, 'NGINX\'s own keys: a reload makes new ones');
    assert.equal(await ticketAfterReload({ 'ssl-session-ticket-key': key.toString('base64') }, [604, 605]), true, 'the ConfigMap\'s key survives the reload');
    const dir = join(controller.prefix, 'tls-session');
    const files = readdirSync(dir);
    assert.equal(files.length, 1, files.join(' '));
    assert.deepEqual(readFileSync(join(dir, files[0]!)), key);
  });

  await t.test('ssl-dh-param: the Secret\'s dhparam.pem lets a DHE-only client in; a missing Secret is reported', async () => {
    const dheOnly = async (): Promise<string> => (await run('curl', ['-sk', '--tls-max', '1.2', '--ciphers', 'DHE-RSA-AES128-GCM-SHA256', '--resolve', `site.test:${port}:127.0.0.1`,
      '-o', '/dev/null', '-w', '%{http_code}', `https://site.test:${port}/`]).catch((error: { code?: number }) => ({ stdout: `curl exit ${error.code}` }))).stdout;
    assert.match(await dheOnly(), /^curl exit /u, 'no parameters: no DHE cipher');
    const from = controller.logs().length;
    await cluster.apply(configMap({ 'ssl-dh-param': 'default/dhparam' }));
    await controller.waitForLog((l) => JSON.stringify(l).includes('Secret default/dhparam: not found'), { timeoutMs: 10_000, from });
    const pem = readFileSync(new URL('../controller/src/model/testdata/ffdhe2048.pem', import.meta.url));
    await cluster.apply(yamlDocuments([{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'dhparam', namespace: 'default' }, data: { 'dhparam.pem': pem.toString('base64') } }]));
    await waitFor('a DHE-only client served', async () => (await dheOnly()) === '200' || undefined, { timeoutMs: 15_000 });
    const files = readdirSync(join(controller.prefix, 'tls-session')).filter((name) => name.startsWith('dhparam-'));
    assert.equal(files.length, 1, files.join(' '));
    assert.equal(readFileSync(join(controller.prefix, 'tls-session', files[0]!), 'utf8'), pem.toString('utf8'));
  });
});
