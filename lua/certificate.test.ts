// Certificates by SNI inside real NGINX: ssl_certificate_by_lua picks the
// certificate the controller pushed (exact host → one-label wildcard →
// pushed default → NGINX's placeholder), rotation is seen without a reload,
// bad pushes are refused whole, and nothing returns or logs key material.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { createSelfSignedCertificate, type SelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { findDataplane } from '../controller/src/nginx/dataplane.ts';
import { contractHttpBlock, freePort, startNginx, type RunningNginx } from './test/nginx-harness.ts';

/** The serial of the certificate NGINX serves for `servername` (undefined = no SNI). */
async function servedSerial(port: number, servername: string | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false, ALPNProtocols: ['h2', 'http/1.1'] }, () => {
      const serial = socket.getPeerCertificate().serialNumber;
      socket.end();
      resolve(serial.toUpperCase());
    });
    socket.once('error', reject);
  });
}

interface Pushed { id: string; certificate: SelfSignedCertificate }

function body(certs: Pushed[], hosts: Record<string, string>, defaultCertificate: string | null = null): string {
  return JSON.stringify({
    certificates: certs.map(({ id, certificate }) => ({ id, cert: certificate.cert, key: certificate.key })),
    hosts,
    defaultCertificate,
  });
}

void describe('certificates by SNI in real NGINX', () => {
  let nginx: RunningNginx;
  let statusUrl: string;
  let tlsPort: number;
  let dir: string;
  const placeholder = createSelfSignedCertificate({ commonName: 'placeholder' });
  const shop = createSelfSignedCertificate({ dnsNames: ['shop.example.com'] });
  const shopRotated = createSelfSignedCertificate({ dnsNames: ['shop.example.com'] });
  const wild = createSelfSignedCertificate({ dnsNames: ['*.api.example.com'] });
  const fallback = createSelfSignedCertificate({ dnsNames: ['fallback.example.com'] });

  const post = async (text: string): Promise<{ status: number; text: string }> => {
    const res = await fetch(`${statusUrl}/configuration/certificates`, { method: 'POST', body: text });
    return { status: res.status, text: await res.text() };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'resty-cert-test-'));
    writeFileSync(join(dir, 'placeholder.crt'), placeholder.cert);
    writeFileSync(join(dir, 'placeholder.key'), placeholder.key, { mode: 0o600 });
    const dataplane = findDataplane();
    const statusPort = await freePort();
    tlsPort = await freePort();
    // As server.njk renders them: only the default server has a certificate (and so an OpenSSL
    // context); the host's own server has none, and SNI picking it must not lose the callback.
    const server = `
    server {
        listen 127.0.0.1:${tlsPort} ssl default_server;
        http2 on;
        ssl_certificate ${dir}/placeholder.crt;
        ssl_certificate_key ${dir}/placeholder.key;
        ssl_client_hello_by_lua_block { require("resty_ingress.certificate").call() }
        location / { return 200 "tls"; }
    }
    server {
        listen 127.0.0.1:${tlsPort} ssl;
        server_name shop.example.com *.api.example.com;
        location / { return 200 "shop"; }
    }`;
    nginx = await startNginx({ dataplane, readyPort: statusPort, http: contractHttpBlock(dataplane, statusPort, server) });
    statusUrl = `http://127.0.0.1:${statusPort}`;
  });
  after(async () => {
    await nginx?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  void it('before any push every name gets the placeholder', async () => {
    assert.equal(await servedSerial(tlsPort, 'shop.example.com'), placeholder.serial);
    assert.equal(await servedSerial(tlsPort, undefined), placeholder.serial);
  });

  void it('exact host (any case, trailing dot), one-label wildcard, else the placeholder', async () => {
    const posted = await post(body([{ id: 'shop/shop-tls', certificate: shop }, { id: 'api/wild', certificate: wild }],
      { 'shop.example.com': 'shop/shop-tls', '*.api.example.com': 'api/wild' }));
    assert.equal(posted.status, 201, posted.text);
    const rows = [
      { name: 'shop.example.com', want: shop.serial },
      { name: 'SHOP.Example.COM', want: shop.serial },
      { name: 'shop.example.com.', want: shop.serial },
      { name: 'v1.api.example.com', want: wild.serial },
      { name: 'a.v1.api.example.com', want: placeholder.serial },
      { name: 'api.example.com', want: placeholder.serial },
      { name: 'unknown.example.com', want: placeholder.serial },
    ];
    for (const row of rows) assert.equal(await servedSerial(tlsPort, row.name), row.want, row.name);
  });

  void it('a pushed default serves unknown names and clients without SNI', async () => {
    const posted = await post(body([{ id: 'shop/shop-tls', certificate: shop }, { id: 'ingress/fallback', certificate: fallback }],
      { 'shop.example.com': 'shop/shop-tls' }, 'ingress/fallback'));
    assert.equal(posted.status, 201, posted.text);
    assert.equal(await servedSerial(tlsPort, 'unknown.example.com'), fallback.serial);
    assert.equal(await servedSerial(tlsPort, undefined), fallback.serial);
    assert.equal(await servedSerial(tlsPort, 'v1.api.example.com'), fallback.serial, 'the removed wildcard is gone');
  });

  void it('rotation: a new PEM under the same id is served at once, by the same workers (no reload)', async () => {
    const workers = nginx.workerPids();
    for (let i = 0; i < 4; i++) assert.equal(await servedSerial(tlsPort, 'shop.example.com'), shop.serial); // both workers cache it
    const posted = await post(body([{ id: 'shop/shop-tls', certificate: shopRotated }, { id: 'ingress/fallback', certificate: fallback }],
      { 'shop.example.com': 'shop/shop-tls' }, 'ingress/fallback'));
    assert.equal(posted.status, 201, posted.text);
    for (let i = 0; i < 4; i++) assert.equal(await servedSerial(tlsPort, 'shop.example.com'), shopRotated.serial);
    assert.deepEqual(nginx.workerPids(), workers);
  });

  void it('removing a host (Secret deleted) falls back to the default', async () => {
    const posted = await post(body([{ id: 'ingress/fallback', certificate: fallback }], {}, 'ingress/fallback'));
    assert.equal(posted.status, 201, posted.text);
    assert.equal(await servedSerial(tlsPort, 'shop.example.com'), fallback.serial);
  });

  const refused = [
    { name: 'not JSON', text: 'nope', reason: /JSON object/ },
    { name: 'malformed certificate', text: body([{ id: 'a/b', certificate: { ...shop, cert: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' } }], {}), reason: /a\/b: cert is not a PEM/ },
    { name: 'malformed key', text: body([{ id: 'a/b', certificate: { ...shop, key: `${shop.key.slice(0, 80)}\n-----END PRIVATE KEY-----\n` } }], {}), reason: /a\/b: key is not a PEM private key/ },
    { name: 'host naming no certificate', text: body([], { 'x.example.com': 'a/missing' }), reason: /names no posted certificate/ },
    { name: 'uppercase host', text: body([{ id: 'a/b', certificate: shop }], { 'X.example.com': 'a/b' }), reason: /lowercase DNS name/ },
    { name: 'unknown default', text: body([], {}, 'a/missing'), reason: /defaultCertificate/ },
    { name: 'bad id', text: body([{ id: 'no-slash', certificate: shop }], {}), reason: /namespace\/name/ },
  ];
  for (const row of refused) {
    void it(`refuses ${row.name} with 400, keeps the state, echoes no PEM`, async () => {
      const before = await (await fetch(`${statusUrl}/configuration/certificates`)).text();
      const posted = await post(row.text);
      assert.equal(posted.status, 400);
      assert.match(posted.text, row.reason);
      assert.doesNotMatch(posted.text, /BEGIN|MII/);
      assert.equal(await (await fetch(`${statusUrl}/configuration/certificates`)).text(), before);
    });
  }

  void it('GET lists ids, hosts and the default, never a PEM or key; the error log stays clean', async () => {
    const res = await fetch(`${statusUrl}/configuration/certificates`);
    const text = await res.text();
    assert.doesNotMatch(text, /BEGIN|PRIVATE|MII/);
    const summary = JSON.parse(text) as { certificates: { id: string }[]; hosts: unknown[]; defaultCertificate: string };
    assert.deepEqual(summary.certificates.map((c) => c.id), ['ingress/fallback']);
    assert.deepEqual(summary.hosts, []);
    assert.equal(summary.defaultCertificate, 'ingress/fallback');
    assert.deepEqual(nginx.seriousLogLines(), []);
    assert.doesNotMatch(nginx.errorLog(), /PRIVATE KEY/);
  });
});
