// Client certificates inside real NGINX (lua/resty_ingress/client_auth.lua): the
// CA bundles and each host's mode are pushed to POST /configuration/client-auth
// (no reload); a server with client auth asks for the certificate in its
// ssl_certificate_by_lua and checks it in a server-level access_by_lua (every
// location inherits it), as the rendered nginx.conf does. Certificates are made
// with openssl; requests go through curl. Every row is answered as ingress-nginx's
// server answers it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { findDataplane } from '../controller/src/nginx/dataplane.ts';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { makeClientCaFixture, type ClientCaFixture } from './test/client-ca-fixture.ts';
import { contractHttpBlock, freePort, startNginx, type RunningNginx } from './test/nginx-harness.ts';

const run = promisify(execFile);

interface Answer { status: number; body: string; location: string }

interface HostState { ca: string | null; verify: string; depth: number; matchCn?: string | null; errorPage?: string | null }

void describe('client certificates in real NGINX', () => {
  let nginx: RunningNginx;
  let statusUrl: string;
  let tlsPort: number;
  let certs: ClientCaFixture;
  const served = createSelfSignedCertificate({ dnsNames: ['secure.test'] });
  const placeholder = createSelfSignedCertificate({ commonName: 'placeholder' });

  const push = async (hosts: Record<string, HostState>, cas: Record<string, string> = { 'shop/ca': certs.ca.cert }): Promise<{ status: number; text: string }> => {
    const res = await fetch(`${statusUrl}/configuration/client-auth`, { method: 'POST', body: JSON.stringify({ cas, hosts }) });
    return { status: res.status, text: await res.text() };
  };
  const pushOk = async (hosts: Record<string, HostState>, cas?: Record<string, string>): Promise<void> => {
    const posted = await push(hosts, cas);
    assert.equal(posted.status, 201, posted.text);
  };
  /** curl to https://<sni>/ with Host `host`, presenting `cert` (a ClientCertFiles or a chain path + key). */
  const request = async (opts: { sni?: string; host?: string; cert?: { certPath: string; keyPath: string } }): Promise<Answer> => {
    const sni = opts.sni ?? 'secure.test';
    const args = ['-sk', '--max-time', '5', '--resolve', `${sni}:${tlsPort}:127.0.0.1`, '-o', '-', '-w', '\n%{http_code} %{redirect_url}',
      '-H', `Host: ${opts.host ?? sni}`, `https://${sni}:${tlsPort}/`];
    if (opts.cert) args.push('--cert', opts.cert.certPath, '--key', opts.cert.keyPath);
    const { stdout } = await run('curl', args);
    const cut = stdout.lastIndexOf('\n');
    const [status, location] = stdout.slice(cut + 1).split(' ');
    return { status: Number(status), body: stdout.slice(0, cut), location: location ?? '' };
  };

  before(async () => {
    certs = await makeClientCaFixture();
    writeFileSync(join(certs.dir, 'placeholder.crt'), placeholder.cert);
    writeFileSync(join(certs.dir, 'placeholder.key'), placeholder.key, { mode: 0o600 });
    const dataplane = findDataplane();
    const statusPort = await freePort();
    tlsPort = await freePort();
    // As the templates render them: the catch-all picks the certificate at client hello; a server
    // with client auth has the placeholder (its own context) and asks again in its certificate phase.
    const servers = `
    server {
        listen 127.0.0.1:${tlsPort} ssl default_server;
        ssl_certificate ${certs.dir}/placeholder.crt;
        ssl_certificate_key ${certs.dir}/placeholder.key;
        ssl_client_hello_by_lua_block { require("resty_ingress.certificate").call() }
        location / { return 200 "catch-all"; }
    }
    server {
        listen 127.0.0.1:${tlsPort} ssl;
        server_name secure.test;
        ssl_certificate ${certs.dir}/placeholder.crt;
        ssl_certificate_key ${certs.dir}/placeholder.key;
        ssl_certificate_by_lua_block { resty_ingress.client_cert_handshake("secure.test") }
        access_by_lua_block { resty_ingress.client_cert("secure.test") }
        location / {
            content_by_lua_block { ngx.print("verify=", ngx.var.ssl_client_verify, " subject=", ngx.var.ssl_client_s_dn or "", " issuer=", ngx.var.ssl_client_i_dn or "") }
        }
    }
    server {
        listen 127.0.0.1:${tlsPort} ssl;
        server_name other.test;
        location / { return 200 "other"; }
    }`;
    nginx = await startNginx({ dataplane, readyPort: statusPort, http: contractHttpBlock(dataplane, statusPort, servers) });
    statusUrl = `http://127.0.0.1:${statusPort}`;
    const posted = await fetch(`${statusUrl}/configuration/certificates`, {
      method: 'POST',
      body: JSON.stringify({ certificates: [{ id: 'shop/tls', cert: served.cert, key: served.key }], hosts: { 'secure.test': 'shop/tls' }, defaultCertificate: null }),
    });
    assert.equal(posted.status, 201, await posted.text());
  });
  after(async () => {
    await nginx?.stop();
    if (certs) rmSync(certs.dir, { recursive: true, force: true });
  });

  void it('before any push the server answers 403 (fails closed)', async () => {
    assert.equal((await request({ cert: certs.alice })).status, 403);
  });

  void it('the server serves the pushed certificate of its SNI, not its placeholder', async () => {
    await pushOk({ 'secure.test': { ca: 'shop/ca', verify: 'on', depth: 1 } });
    const { stdout } = await run('sh', ['-c', `openssl s_client -connect 127.0.0.1:${tlsPort} -servername secure.test -cert ${certs.alice.certPath} -key ${certs.alice.keyPath} </dev/null 2>/dev/null | openssl x509 -noout -serial`]);
    assert.equal(stdout.trim().replace(/^serial=/, ''), served.serial);
  });

  const rows: { name: string; state: HostState; cert?: keyof Pick<ClientCaFixture, 'alice' | 'mallory'> | 'deep'; sni?: string; host?: string; status: number; body?: RegExp; location?: string }[] = [
    { name: 'on: a certificate of the CA is accepted, its DNs seen', state: { ca: 'shop/ca', verify: 'on', depth: 1 }, cert: 'alice', status: 200, body: /^verify=SUCCESS subject=O=Eng,CN=alice issuer=CN=Test Client CA$/ },
    { name: 'on: no certificate is 400 (NGINX\'s "No required SSL certificate was sent")', state: { ca: 'shop/ca', verify: 'on', depth: 1 }, status: 400, body: /No required SSL certificate was sent/ },
    { name: 'on: a certificate of another CA is 400 (NGINX\'s "The SSL certificate error")', state: { ca: 'shop/ca', verify: 'on', depth: 1 }, cert: 'mallory', status: 400, body: /The SSL certificate error/ },
    // OpenSSL's depth counts the intermediates between the client and the CA (as NGINX's ssl_verify_depth).
    { name: 'on: depth 0 refuses a client under an intermediate', state: { ca: 'shop/ca', verify: 'on', depth: 0 }, cert: 'deep', status: 400 },
    { name: 'on: depth 1 accepts it', state: { ca: 'shop/ca', verify: 'on', depth: 1 }, cert: 'deep', status: 200, body: /^verify=SUCCESS subject=CN=deep issuer=CN=Test Intermediate$/ },
    { name: 'optional: no certificate passes as NONE', state: { ca: 'shop/ca', verify: 'optional', depth: 1 }, status: 200, body: /^verify=NONE subject= issuer=$/ },
    { name: 'optional: a certificate of the CA passes', state: { ca: 'shop/ca', verify: 'optional', depth: 1 }, cert: 'alice', status: 200, body: /^verify=SUCCESS/ },
    { name: 'optional: a certificate of another CA is 400', state: { ca: 'shop/ca', verify: 'optional', depth: 1 }, cert: 'mallory', status: 400 },
    { name: 'optional_no_ca: another CA\'s certificate passes, FAILED shown', state: { ca: 'shop/ca', verify: 'optional_no_ca', depth: 1 }, cert: 'mallory', status: 200, body: /^verify=FAILED:unable to verify the first certificate subject=CN=mallory/ },
    { name: 'optional_no_ca: the CA\'s certificate verifies', state: { ca: 'shop/ca', verify: 'optional_no_ca', depth: 1 }, cert: 'alice', status: 200, body: /^verify=SUCCESS/ },
    { name: 'off: no certificate is asked for, NONE', state: { ca: 'shop/ca', verify: 'off', depth: 1 }, cert: 'alice', status: 200, body: /^verify=NONE/ },
    { name: 'error page: a refused certificate is sent there (302)', state: { ca: 'shop/ca', verify: 'on', depth: 1, errorPage: 'https://errors.test/cert' }, cert: 'mallory', status: 302, location: 'https://errors.test/cert' },
    { name: 'error page: no certificate is sent there too', state: { ca: 'shop/ca', verify: 'on', depth: 1, errorPage: 'https://errors.test/cert' }, status: 302, location: 'https://errors.test/cert' },
    { name: 'match-cn: a matching subject passes', state: { ca: 'shop/ca', verify: 'on', depth: 1, matchCn: 'CN=(alice|bob)' }, cert: 'alice', status: 200 },
    { name: 'match-cn: another subject is 403', state: { ca: 'shop/ca', verify: 'on', depth: 1, matchCn: 'CN=bob' }, cert: 'alice', status: 403, body: /^client certificate unauthorized$/ },
    { name: 'match-cn with optional and no certificate is 403', state: { ca: 'shop/ca', verify: 'optional', depth: 1, matchCn: 'CN=alice' }, status: 403 },
    { name: 'a host whose CA is missing answers 403', state: { ca: null, verify: 'on', depth: 1 }, cert: 'alice', status: 403 },
    { name: 'a request for the host over another SNI is 421 (misdirected)', state: { ca: 'shop/ca', verify: 'on', depth: 1 }, sni: 'other.test', host: 'secure.test', cert: 'alice', status: 421 },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      await pushOk({ 'secure.test': row.state });
      const cert = row.cert === 'deep' ? { certPath: certs.deepChainPath, keyPath: certs.deep.keyPath } : row.cert ? certs[row.cert] : undefined;
      const answer = await request({ sni: row.sni, host: row.host, cert });
      assert.equal(answer.status, row.status, answer.body);
      if (row.body) assert.match(answer.body, row.body);
      if (row.location) assert.equal(answer.location, row.location);
    });
  }

  void it('a new CA under the same id applies at once, by the same workers (no reload)', async () => {
    await pushOk({ 'secure.test': { ca: 'shop/ca', verify: 'on', depth: 1 } });
    const workers = nginx.workerPids();
    for (let i = 0; i < 4; i++) assert.equal((await request({ cert: certs.alice })).status, 200);
    await pushOk({ 'secure.test': { ca: 'shop/ca', verify: 'on', depth: 1 } }, { 'shop/ca': certs.otherCa.cert });
    for (let i = 0; i < 4; i++) {
      assert.equal((await request({ cert: certs.alice })).status, 400);
      assert.equal((await request({ cert: certs.mallory })).status, 200);
    }
    assert.deepEqual(nginx.workerPids(), workers);
  });

  const refused: { name: string; body: () => string; reason: RegExp }[] = [
    { name: 'not an object', body: () => '[]', reason: /JSON object/ },
    { name: 'unknown top-level field', body: () => JSON.stringify({ cas: {}, hosts: {}, extra: 1 }), reason: /unknown field/ },
    { name: 'unknown host field', body: () => JSON.stringify({ cas: {}, hosts: { 'a.test': { ca: null, verify: 'on', depth: 1, snippet: 'x' } } }), reason: /unknown field/ },
    { name: 'bad verify mode', body: () => JSON.stringify({ cas: {}, hosts: { 'a.test': { ca: null, verify: 'yes', depth: 1 } } }), reason: /verify must be/ },
    { name: 'CA not in the body', body: () => JSON.stringify({ cas: {}, hosts: { 'a.test': { ca: 'x/y', verify: 'on', depth: 1 } } }), reason: /names no CA/ },
    { name: 'not a PEM', body: () => JSON.stringify({ cas: { 'x/y': 'nope' }, hosts: {} }), reason: /x\/y is not a PEM/ },
    { name: 'fractional depth', body: () => JSON.stringify({ cas: {}, hosts: { 'a.test': { ca: null, verify: 'on', depth: 1.5 } } }), reason: /depth/ },
    { name: 'match-cn PCRE refuses', body: () => JSON.stringify({ cas: {}, hosts: { 'a.test': { ca: null, verify: 'on', depth: 1, matchCn: 'CN=(' } } }), reason: /does not compile/ },
    { name: 'match-cn with a newline', body: () => JSON.stringify({ cas: {}, hosts: { 'a.test': { ca: null, verify: 'on', depth: 1, matchCn: 'CN=a\nb' } } }), reason: /control/ },
    { name: 'error page outside the redirect grammar', body: () => JSON.stringify({ cas: {}, hosts: { 'a.test': { ca: null, verify: 'on', depth: 1, errorPage: 'https://x.test/a b' } } }), reason: /redirect target/ },
    { name: 'host with a space', body: () => JSON.stringify({ cas: {}, hosts: { 'a test': { ca: null, verify: 'on', depth: 1 } } }), reason: /host name/ },
  ];
  for (const row of refused) {
    void it(`refuses ${row.name} with 400 and keeps the state`, async () => {
      const stored = await (await fetch(`${statusUrl}/configuration/client-auth`)).text();
      const res = await fetch(`${statusUrl}/configuration/client-auth`, { method: 'POST', body: row.body() });
      const text = await res.text();
      assert.equal(res.status, 400, text);
      assert.match(text, row.reason);
      assert.doesNotMatch(text, /BEGIN/);
      assert.equal(await (await fetch(`${statusUrl}/configuration/client-auth`)).text(), stored);
    });
  }

  void it('the error log stays clean', () => {
    assert.deepEqual(nginx.seriousLogLines(), []);
  });
});
