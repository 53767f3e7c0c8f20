// Client certificates and TLS session resumption inside real NGINX
// (lua/resty_ingress/client_auth_session.lua). A resumed session runs no
// certificate phase: its $ssl_client_verify and DNs are those recorded when it
// was made. Each row makes a session with `openssl s_client -sess_out`, changes
// what was pushed to /configuration/client-auth, and offers the session again
// with `-sess_in` (presenting a certificate too, as a client does, in case the
// server asks for a full handshake). A session resumes only for the same name
// under the same CA, mode and depth; otherwise the handshake is a full one and
// the current settings decide. Every row runs over TLS 1.2 and TLS 1.3, with
// the session cache as tls.njk renders it (tickets off), and again with session
// tickets on (the ConfigMap's ssl-session-tickets, not supported yet, must not
// reopen the gap).
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { findDataplane } from '../controller/src/nginx/dataplane.ts';
import { createSelfSignedCertificate } from '../controller/src/tls/self-signed.ts';
import { makeClientCaFixture, type ClientCaFixture } from './test/client-ca-fixture.ts';
import { contractHttpBlock, freePort, startNginx, type RunningNginx } from './test/nginx-harness.ts';

const run = promisify(execFile);

type Version = '-tls1_2' | '-tls1_3';
type Client = 'alice' | 'mallory' | 'deep' | 'none';
interface HostState { ca: string | null; verify: string; depth: number }
/** What is pushed: each host's settings; `rotated` replaces shop/ca's PEM by another CA of the same subject. */
interface State { hosts: Record<string, HostState>; rotated?: true }
interface Answer { status: number; body: string }

/**
 * One s_client connection, one HTTP/1.0 request for `path` (the server closes after the answer).
 * Quiet: with TLS 1.3 its session printouts would interleave with the answer; whether the session
 * was resumed is read from NGINX's log instead (reusedOf).
 */
function connect(port: number, version: Version, sni: string, path: string, certArgs: string[], session: { out?: string; in?: string }): Promise<Answer> {
  const args = ['s_client', '-connect', `127.0.0.1:${port}`, version, '-servername', sni, '-quiet', ...certArgs];
  if (session.out) args.push('-sess_out', session.out);
  if (session.in) args.push('-sess_in', session.in);
  return new Promise((resolve, reject) => {
    const child = spawn('openssl', args, { stdio: ['pipe', 'pipe', 'ignore'], timeout: 10_000 });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      const head = /^HTTP\/1\.1 (\d{3}) [\s\S]*?\r\n\r\n([\s\S]*)$/.exec(out);
      resolve({ status: head ? Number(head[1]) : 0, body: head ? head[2] : out });
    });
    child.stdin.end(`GET ${path} HTTP/1.0\r\nHost: ${sni}\r\n\r\n`);
  });
}

/** A connection after the change: whether it resumed, and what was answered. */
interface Expect { reused: boolean; status: number; body?: RegExp }

interface Row {
  name: string;
  /** State and client of the first, full handshake (its session is saved). */
  before: State; client: Client; sni?: string;
  /** Pushed before the session is offered again (in order). */
  after: State[];
  /** Client and name of the connection that offers the session. */
  againClient?: Client; againSni?: string;
  expect: Expect;
}

const ON: HostState = { ca: 'shop/ca', verify: 'on', depth: 1 };
const OTHER: HostState = { ca: 'shop/other', verify: 'on', depth: 1 };
// secure.test trusts shop/ca, second.test shop/other: two tenants with their own CAs.
const BOTH: State = { hosts: { 'secure.test': ON, 'second.test': OTHER } };
const withSecure = (host: Partial<HostState>): State => ({ hosts: { ...BOTH.hosts, 'secure.test': { ...ON, ...host } } });

const rows: Row[] = [
  { name: 'an unchanged CA resumes with the result it verified', before: BOTH, client: 'alice', after: [BOTH],
    expect: { reused: true, status: 200, body: /^verify=SUCCESS reused=r subject=O=Eng,CN=alice$/ } },
  { name: 'a CA no longer trusting the client: no resumption, refused', before: BOTH, client: 'alice',
    after: [withSecure({ ca: 'shop/other' })],
    expect: { reused: false, status: 400, body: /The SSL certificate error/ } },
  { name: 'a new CA of the same subject in the same Secret: no resumption, refused', before: BOTH, client: 'alice',
    after: [{ ...BOTH, rotated: true }],
    expect: { reused: false, status: 400, body: /The SSL certificate error/ } },
  { name: 'a session verified under an earlier CA is not accepted under the current one', before: withSecure({ ca: 'shop/other' }),
    client: 'mallory', after: [BOTH], expect: { reused: false, status: 400, body: /The SSL certificate error/ } },
  { name: 'a lowered verify depth: no resumption, the chain is refused', before: BOTH, client: 'deep',
    after: [withSecure({ depth: 0 })], expect: { reused: false, status: 400 } },
  { name: 'verify off: the session of a verified client does not carry its certificate', before: BOTH, client: 'alice',
    after: [withSecure({ verify: 'off' })], expect: { reused: false, status: 200, body: /^verify=NONE reused=\. subject=$/ } },
  { name: 'optional_no_ca to on: a session with a failed verification is refused', before: withSecure({ verify: 'optional_no_ca' }),
    client: 'mallory', after: [BOTH], expect: { reused: false, status: 400, body: /The SSL certificate error/ } },
  { name: 'removed, then added with another CA: no resumption, refused', before: BOTH, client: 'alice',
    after: [{ hosts: { 'second.test': OTHER } }, withSecure({ ca: 'shop/other' })],
    expect: { reused: false, status: 400, body: /The SSL certificate error/ } },
  { name: 'removed, then added with the same settings: resumes (verified under the CA it has again)', before: BOTH, client: 'alice',
    after: [{ hosts: { 'second.test': OTHER } }, BOTH], expect: { reused: true, status: 200, body: /^verify=SUCCESS reused=r/ } },
  { name: 'a session of one host does not resume on a host that trusts another CA', before: BOTH, client: 'alice',
    after: [BOTH], againClient: 'none', againSni: 'second.test', expect: { reused: false, status: 400, body: /No required SSL certificate/ } },
  { name: 'a session of a host without client certificates does not resume on one with them', before: BOTH, client: 'none', sni: 'plain.test',
    after: [BOTH], againClient: 'alice', againSni: 'secure.test', expect: { reused: false, status: 200, body: /^verify=SUCCESS reused=\. / } },
];

for (const tickets of ['off', 'on'] as const) {
  void describe(`client certificates and session resumption (ssl_session_tickets ${tickets})`, () => {
    let nginx: RunningNginx;
    let statusUrl: string;
    let tlsPort: number;
    let certs: ClientCaFixture;
    let rotated: string;
    const served = createSelfSignedCertificate({ dnsNames: ['secure.test', 'second.test', 'plain.test'] });
    const placeholder = createSelfSignedCertificate({ commonName: 'placeholder' });

    const push = async (state: State): Promise<void> => {
      const cas = { 'shop/ca': state.rotated ? rotated : certs.ca.cert, 'shop/other': certs.otherCa.cert };
      const res = await fetch(`${statusUrl}/configuration/client-auth`, { method: 'POST', body: JSON.stringify({ cas, hosts: state.hosts }) });
      assert.equal(res.status, 201, await res.text());
    };
    /** Whether NGINX resumed the session of the request for `path` ($ssl_session_reused "r"). */
    const reusedOf = (path: string): boolean => {
      const line = readFileSync(join(nginx.prefix, 'resumption.log'), 'utf8').split('\n').find((l) => l.startsWith(`${path} `));
      assert.ok(line, `no log line for ${path}`);
      return line.split(' ')[1] === 'r';
    };
    const certArgs = (client: Client): string[] => {
      if (client === 'none') return [];
      if (client === 'deep') return ['-cert', certs.deep.certPath, '-key', certs.deep.keyPath, '-cert_chain', certs.intermediate.certPath];
      return ['-cert', certs[client].certPath, '-key', certs[client].keyPath];
    };

    before(async () => {
      certs = await makeClientCaFixture();
      // The Secret's ca.crt replaced by a new CA: another key under the same subject (NGINX's own
      // session context digests the client CA names only; ours digests the PEM).
      const rotatedPath = join(certs.dir, 'rotated-ca.crt');
      await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(certs.dir, 'rotated-ca.key'), '-out', rotatedPath,
        '-days', '2', '-subj', '/CN=Test Client CA', '-addext', 'basicConstraints=critical,CA:TRUE']);
      rotated = readFileSync(rotatedPath, 'utf8');
      writeFileSync(join(certs.dir, 'placeholder.crt'), placeholder.cert);
      writeFileSync(join(certs.dir, 'placeholder.key'), placeholder.key, { mode: 0o600 });
      const dataplane = findDataplane();
      const statusPort = await freePort();
      tlsPort = await freePort();
      // As the templates render them (tls.njk, tls-default-server.njk, client-certs-server.njk).
      const clientAuthServer = (name: string): string => `
      server {
          listen 127.0.0.1:${tlsPort} ssl;
          server_name ${name};
          ssl_certificate ${certs.dir}/placeholder.crt;
          ssl_certificate_key ${certs.dir}/placeholder.key;
          ssl_certificate_by_lua_block { resty_ingress.client_cert_handshake("${name}") }
          access_by_lua_block { resty_ingress.client_cert("${name}") }
          access_log resumption.log resumption;
          location / {
              content_by_lua_block { ngx.print("verify=", ngx.var.ssl_client_verify, " reused=", ngx.var.ssl_session_reused, " subject=", ngx.var.ssl_client_s_dn or "") }
          }
      }`;
      const servers = `
      ssl_session_cache shared:SSL:10m;
      ssl_session_timeout 10m;
      ssl_session_tickets ${tickets};
      log_format resumption '$request_uri $ssl_session_reused $status';
      server {
          listen 127.0.0.1:${tlsPort} ssl default_server;
          ssl_certificate ${certs.dir}/placeholder.crt;
          ssl_certificate_key ${certs.dir}/placeholder.key;
          ssl_client_hello_by_lua_block { require("resty_ingress.certificate").call() }
          location / { return 200 "catch-all"; }
      }
      ${clientAuthServer('secure.test')}
      ${clientAuthServer('second.test')}
      server {
          listen 127.0.0.1:${tlsPort} ssl;
          server_name plain.test;
          access_log resumption.log resumption;
          location / { return 200 "plain"; }
      }`;
      nginx = await startNginx({ dataplane, readyPort: statusPort, http: contractHttpBlock(dataplane, statusPort, servers) });
      statusUrl = `http://127.0.0.1:${statusPort}`;
      const posted = await fetch(`${statusUrl}/configuration/certificates`, {
        method: 'POST',
        body: JSON.stringify({
          certificates: [{ id: 'shop/tls', cert: served.cert, key: served.key }],
          hosts: { 'secure.test': 'shop/tls', 'second.test': 'shop/tls', 'plain.test': 'shop/tls' }, defaultCertificate: null,
        }),
      });
      assert.equal(posted.status, 201, await posted.text());
    });
    after(async () => {
      await nginx?.stop();
      if (certs) rmSync(certs.dir, { recursive: true, force: true });
    });

    for (const version of ['-tls1_2', '-tls1_3'] as const) {
      for (const [index, row] of rows.entries()) {
        void it(`${version.slice(1)}: ${row.name}`, async () => {
          const session = join(certs.dir, `session-${tickets}${version}`);
          rmSync(session, { force: true });
          await push(row.before);
          const path = `/${tickets}${version}/${index}`;
          const first = await connect(tlsPort, version, row.sni ?? 'secure.test', `${path}/first`, certArgs(row.client), { out: session });
          assert.equal(first.status, 200, first.body);
          assert.equal(reusedOf(`${path}/first`), false);
          for (const state of row.after) await push(state);
          const again = await connect(tlsPort, version, row.againSni ?? 'secure.test', `${path}/again`, certArgs(row.againClient ?? row.client), { in: session });
          const reused = reusedOf(`${path}/again`);
          assert.equal(reused, row.expect.reused, `resumed: ${reused}, answered ${again.status} ${again.body}`);
          assert.equal(again.status, row.expect.status, again.body);
          if (row.expect.body) assert.match(again.body, row.expect.body);
        });
      }
    }

    void it('the error log stays clean', () => {
      // But for one line NGINX itself logs (measured with ssl_verify_client and ssl_client_certificate, no Lua):
      // a client certificate whose issuer has the name of the CA but not its key fails its signature check,
      // and OpenSSL leaves that in the error queue, which NGINX reports at its next read.
      // OpenSSL words the failed RSA check by the signature's bytes: "invalid padding" or "data too large for modulus".
      const staleSignatureError = /\[alert\] .* ignoring stale global SSL error \(SSL: error:020000(?:8A|84):rsa routines::(?:invalid padding|data too large for modulus) /;
      assert.deepEqual(nginx.seriousLogLines().filter((line) => !staleSignatureError.test(line)), []);
    });
  });
}
