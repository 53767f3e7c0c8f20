// SSL passthrough (render option sslPassthrough, Model.sslPassthrough) through a rendered
// nginx.conf: what the stream router and the HTTP side hold, what render refuses, and real
// traffic through the data-plane NGINX: a passthrough SNI reaches the backend's own TLS
// server with nothing before the ClientHello (no PROXY header), another SNI is terminated by
// NGINX on the unix-socket listener with the client's own address in the access log, and
// use-proxy-protocol in front of the router still names the client; the hop's
// peers come from the njs feed (`SNI/<hostname>`): round robin, a new set used
// without a reload, a dead peer skipped, a host without endpoints closed at once.
// Fails (never skips) without the runtime: the test command runs setup first.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect as tcpConnect, createServer as createTcpServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as tlsConnect, createServer as createTlsServer } from 'node:tls';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import type { Model, PassthroughHost } from '../model/types.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { workerPidsOf } from '../nginx/nginx-processes.ts';
import { feedStreams } from '../nginx/stream-feed.ts';
import { createSelfSignedCertificate } from '../tls/self-signed.ts';
import { RenderError } from './nginx-values.ts';
import { renderConfig } from './render-config.ts';
import { streamFeedSocketPath, type RenderOptions } from './render-options.ts';
import { goldenOptions, model, PLACEHOLDER_DATAPLANE } from './testdata/model-fixtures.ts';
import { checkConfig, makePrefix, startNginx } from './testdata/nginx-runner.ts';

function host(hostname: string, endpoints: PassthroughHost['endpoints']): PassthroughHost {
  return { hostname, backend: 'default-tls-443', namespace: 'default', service: 'tls', servicePort: 443, ingress: { namespace: 'default', name: 'p' }, endpoints };
}

function withHosts(hosts: readonly PassthroughHost[], clientAddress: Partial<Model['settings']['clientAddress']> = {}): Model {
  const base = model([], []);
  return { ...base, settings: { ...base.settings, clientAddress: { ...base.settings.clientAddress, ...clientAddress } }, sslPassthrough: hosts };
}

const passthrough = (changes: Partial<RenderOptions> = {}): RenderOptions => ({ ...goldenOptions(), sslPassthrough: true, ...changes });

void describe('SSL passthrough rendering', () => {
  void it('off (the default): the HTTPS listener is NGINX\'s own, no stream {} and no realip', () => {
    const { conf } = renderConfig(model([], []), goldenOptions());
    assert.match(conf, /listen "127\.0\.0\.1:8443" ssl default_server;/u);
    assert.ok(!/^stream \{/mu.test(conf));
    assert.ok(!conf.includes('real_ip_header'));
  });

  void it('on without passthrough hosts: the router still owns the HTTPS port (it never moves between reloads)', () => {
    const { conf } = renderConfig(withHosts([]), passthrough());
    assert.match(conf, /^stream \{/mu);
    assert.match(conf, /listen "127\.0\.0\.1:8443";\n\s+ssl_preread on;\n\s+proxy_protocol on;/u);
    assert.match(conf, /listen "unix:\/golden\/prefix\/sockets\/https\.sock" ssl default_server proxy_protocol;/u);
    assert.ok(!conf.includes('listen "127.0.0.1:8443" ssl'), 'no HTTP server listens on the HTTPS port');
  });

  void it('the HTTP side trusts the unix socket\'s PROXY header alone, and reports the port it names', () => {
    const { conf } = renderConfig(withHosts([]), passthrough());
    assert.match(conf, /real_ip_header "proxy_protocol";\n\s+real_ip_recursive on;\n(?:\s+#[^\n]*\n)?\s+set_real_ip_from unix:;/u);
    assert.ok(!/set_real_ip_from "?0\.0\.0\.0/u.test(conf), 'no TCP peer is trusted');
    assert.match(conf, /map \$server_port \$pass_server_port \{\n\s+"" \$proxy_protocol_server_port;/u);
  });

  void it('use-proxy-protocol: the router reads the balancer\'s header (trusted from proxy-real-ip-cidr) and sends the client on', () => {
    const { conf } = renderConfig(withHosts([], { useProxyProtocol: true, realIpFrom: ['10.0.0.0/8'] }), passthrough());
    assert.match(conf, /listen "127\.0\.0\.1:8443" proxy_protocol;\n\s+# [^\n]*\n\s+proxy_protocol_timeout 5000ms;\n\s+set_real_ip_from "10\.0\.0\.0\/8";/u);
    assert.match(conf, /set_real_ip_from "10\.0\.0\.0\/8";\n(?:\s+#[^\n]*\n)?\s+set_real_ip_from unix:;/u);
  });

  const refusals: ReadonlyArray<{ name: string; model: Model; options: RenderOptions; code: string }> = [
    { name: 'hosts without the option', model: withHosts([host('pass.test', [])]), options: goldenOptions(), code: 'UnsafeValue' },
    { name: 'a host that is not a DNS name', model: withHosts([host('evil";}', [])]), options: passthrough(), code: 'UnsafeValue' },
    { name: 'a wildcard host', model: withHosts([host('*.pass.test', [])]), options: passthrough(), code: 'UnsafeValue' },
    { name: 'a host twice', model: withHosts([host('pass.test', []), host('pass.test', [])]), options: passthrough(), code: 'UnsafeValue' },
    { name: 'use-forwarded-headers with passthrough', model: withHosts([], { useForwardedHeaders: true }), options: passthrough(), code: 'UnsafeValue' },
    { name: 'the option without HTTPS', model: withHosts([]), options: { ...passthrough(), httpsPort: undefined }, code: 'InvalidOptions' },
    { name: 'the option without the stream module', model: withHosts([]), options: passthrough({ dataplane: { ...PLACEHOLDER_DATAPLANE, streamModule: undefined } }), code: 'InvalidOptions' },
  ];
  for (const row of refusals) {
    void it(`refuses ${row.name}`, () => {
      assert.throws(() => renderConfig(row.model, row.options), (error: unknown) => error instanceof RenderError && error.code === row.code);
    });
  }

  void it('endpoints are not in nginx.conf: a change leaves it and its version alone (they are fed to njs)', () => {
    const before = renderConfig(withHosts([host('pass.test', [{ address: '10.0.0.1', port: 8443 }])]), passthrough());
    const after = renderConfig(withHosts([host('pass.test', [{ address: '10.0.0.2', port: 8443 }, { address: '10.0.0.3', port: 8443 }])]), passthrough());
    assert.equal(after.version, before.version);
    assert.equal(after.conf, before.conf);
    assert.ok(!before.conf.includes('10.0.0.1'), 'no endpoint in nginx.conf');
    assert.match(before.conf, /listen "unix:\/golden\/prefix\/sockets\/passthrough\.sock" proxy_protocol;\n(?:\s+[^\n]+\n)*?\s+proxy_pass \$resty_passthrough_peer;/u);
  });

  void it('nginx -t accepts 3,000 passthrough hosts with 190-character names (the SNI maps\' hash sizing)', async () => {
    const dataplane = findDataplane();
    const prefix = makePrefix();
    const hosts = Array.from({ length: 3000 }, (_, i) => host(`${'x'.repeat(60)}.${'y'.repeat(60)}.${'z'.repeat(50)}-${String(i).padStart(5, '0')}.example.com`, [{ address: '10.0.0.1', port: 8443 }]));
    const { conf } = renderConfig(withHosts(hosts), { ...goldenOptions(dataplane, prefix), sslPassthrough: true });
    assert.match(conf, /map_hash_bucket_size \d+;/u);
    assert.match(await checkConfig(dataplane, prefix, conf), /test is successful/u);
  });

  void it('nginx -t accepts the use-proxy-protocol form', async () => {
    const dataplane = findDataplane();
    const prefix = makePrefix();
    const { conf } = renderConfig(withHosts([host('pass.test', [{ address: '127.0.0.1', port: 9 }])], { useProxyProtocol: true }), { ...passthrough(), ...goldenOptions(dataplane, prefix), sslPassthrough: true });
    assert.match(await checkConfig(dataplane, prefix, conf), /test is successful/u);
  });
});

/** The certificate's serial the server presents for `servername`, and what it sent after the handshake. */
function handshake(port: number, servername: string, localAddress = '127.0.0.1', request = '', proxyHeader = ''): Promise<{ serial: string; text: string }> {
  return new Promise((done, fail) => {
    const tcp = tcpConnect({ port, host: '127.0.0.1', localAddress });
    // A balancer's PROXY header goes before the ClientHello, on the bare TCP connection.
    if (proxyHeader !== '') tcp.write(proxyHeader);
    const socket = tlsConnect({ socket: tcp, servername, rejectUnauthorized: false }, () => {
      if (request !== '') socket.write(request);
    });
    let text = '';
    socket.setTimeout(5000, () => socket.destroy(new Error(`no answer within 5 s from ${servername}`)));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('end', () => done({ serial: socket.getPeerCertificate().serialNumber ?? '', text }));
    socket.on('error', fail);
  });
}

void describe('SSL passthrough in the real NGINX', () => {
  const cases = [
    { name: 'SNI picks the backend\'s TLS server (nothing before its ClientHello) or NGINX\'s, with the client\'s address', proxyProtocol: false },
    { name: 'use-proxy-protocol: the balancer\'s header names the client on the HTTP side, and the backend still gets the bare ClientHello', proxyProtocol: true },
  ];
  for (const row of cases) {
    void it(row.name, async () => {
      const backendCert = createSelfSignedCertificate({ dnsNames: ['pass.test'] });
      let firstBytes = '';
      const tls = createTlsServer({ cert: backendCert.cert, key: backendCert.key }, (socket) => socket.end('backend\n'));
      tls.on('tlsClientError', () => {});
      // What the backend's TCP connection starts with (a ClientHello record, 0x16, never "PROXY"), then TLS.
      const backend = createTcpServer((socket) => socket.once('data', (chunk: Buffer) => {
        firstBytes ||= chunk.subarray(0, 5).toString('latin1');
        socket.pause();
        socket.unshift(chunk);
        tls.emit('connection', socket);
      }));
      await new Promise<void>((done) => backend.listen(0, '127.0.0.1', done));
      after(() => backend.close());
      const [httpPort, httpsPort, statusPort] = await Promise.all([1, 2, 3].map(() => freePort()));
      const dataplane = findDataplane();
      const prefix = makePrefix();
      const hosts = [host('pass.test', [{ address: '127.0.0.1', port: (backend.address() as AddressInfo).port }])];
      const address = row.proxyProtocol ? { useProxyProtocol: true, realIpFrom: ['127.0.0.0/8'] } : {};
      const { conf } = renderConfig(withHosts(hosts, address), { ...goldenOptions(dataplane, prefix), httpPort, httpsPort, statusPort, sslPassthrough: true });
      const nginx = await startNginx(dataplane, prefix, conf, `http://127.0.0.1:${statusPort}/config-version`);
      await feedStreams(streamFeedSocketPath(prefix), 1, hosts.map(({ hostname, endpoints }) => ({ protocol: 'SNI', hostname, endpoints })));
      // With use-proxy-protocol the balancer (this test, from 127.0.0.1) names the client 192.0.2.9.
      const header = (port: number): string => (row.proxyProtocol ? `PROXY TCP4 192.0.2.9 127.0.0.1 40000 ${port}\r\n` : '');
      const client = row.proxyProtocol ? '192.0.2.9' : '127.0.0.2';
      try {
        const passed = await handshake(httpsPort, 'pass.test', '127.0.0.1', '', header(httpsPort));
        assert.equal(passed.serial.replace(/^0+/u, ''), backendCert.serial.toUpperCase().replace(/^0+/u, ''), 'the backend\'s own certificate');
        assert.equal(passed.text, 'backend\n');
        assert.equal(firstBytes.charCodeAt(0), 0x16, `the backend's connection starts with the ClientHello, got ${JSON.stringify(firstBytes)}`);

        const other = await handshake(httpsPort, 'other.test', '127.0.0.2', 'GET / HTTP/1.0\r\nHost: other.test\r\n\r\n', header(httpsPort));
        assert.notEqual(other.serial, passed.serial, 'NGINX terminates other names with its own certificate');
        assert.match(other.text, /^HTTP\/1\.1 404 /u);
        const logged = readFileSync(join(prefix, 'access.log'), 'utf8');
        assert.match(logged, new RegExp(`^${client.replaceAll('.', '\\.')} .*"GET / HTTP/1\\.0" 404 `, 'mu'), 'the access log (and every $remote_addr reader) sees the client, not the socket');

        const serious = nginx.errorLog().split('\n').filter((line) => /\[(error|alert|crit|emerg)\]/u.test(line));
        assert.deepEqual(serious, []);
      } finally {
        await nginx.stop();
      }
    });
  }
});

/** A TLS server (own certificate for pass.test) answering `<name>` to every connection. */
async function namedTls(name: string): Promise<{ close(): void; port: number }> {
  const certificate = createSelfSignedCertificate({ dnsNames: ['pass.test'] });
  const server = createTlsServer({ cert: certificate.cert, key: certificate.key }, (socket) => socket.end(`${name}\n`));
  server.on('tlsClientError', () => {});
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { close: () => server.close(), port: (server.address() as AddressInfo).port };
}

/** The name the passthrough backend answers for SNI `servername`, '' when the connection fails. */
function reached(port: number, servername: string): Promise<string> {
  return new Promise((done) => {
    let text = '';
    const socket = tlsConnect({ port, host: '127.0.0.1', servername, rejectUnauthorized: false });
    socket.setTimeout(5000, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('close', () => done(text.trim()));
    socket.on('error', () => undefined);
  });
}

void describe('SSL passthrough endpoints through njs in the real NGINX', () => {
  void it('round robin over the fed set, a new set without a reload, a dead peer skipped, none: closed at once', async () => {
    const [a, b, c] = await Promise.all([namedTls('a'), namedTls('b'), namedTls('c')]);
    after(() => { a.close(); b.close(); c.close(); });
    const dead = await freePort();
    const [httpPort, httpsPort, statusPort] = await Promise.all([1, 2, 3].map(() => freePort()));
    const dataplane = findDataplane();
    const prefix = makePrefix();
    const { conf } = renderConfig(withHosts([host('pass.test', []), host('empty.test', [])]), { ...goldenOptions(dataplane, prefix), httpPort, httpsPort, statusPort, sslPassthrough: true });
    const nginx = await startNginx(dataplane, prefix, conf, `http://127.0.0.1:${statusPort}/config-version`);
    const socket = streamFeedSocketPath(prefix);
    const feed = (version: number, peers: readonly number[]): Promise<void> => feedStreams(socket, version, [
      { protocol: 'SNI', hostname: 'empty.test', endpoints: [] },
      { protocol: 'SNI', hostname: 'pass.test', endpoints: peers.map((port) => ({ address: '127.0.0.1', port })) },
    ]);
    try {
      const master = Number(readFileSync(join(prefix, 'nginx.pid'), 'utf8'));
      const workers = workerPidsOf(master).join(',');
      await feed(1, [a.port, b.port]);
      const first: string[] = [];
      for (let i = 0; i < 4; i++) first.push(await reached(httpsPort, 'pass.test'));
      assert.deepEqual([...first].sort(), ['a', 'a', 'b', 'b'], 'round robin over both peers');
      assert.equal(await reached(httpsPort, 'PASS.test'), first[0], 'the SNI name is matched case-blind, as NGINX\'s map');

      await feed(2, [c.port]);
      assert.equal(await reached(httpsPort, 'pass.test'), 'c', 'the new set serves the next connection');
      assert.equal(workerPidsOf(master).join(','), workers, 'no reload: the same workers');

      await feed(3, [dead, c.port]);
      const answers: string[] = [];
      for (let i = 0; i < 6; i++) answers.push(await reached(httpsPort, 'pass.test'));
      assert.ok(answers.filter((answer) => answer === '').length <= 1, `the dead peer fails one connection at most, then is skipped: ${JSON.stringify(answers)}`);
      assert.deepEqual(answers.slice(-4), ['c', 'c', 'c', 'c']);

      assert.equal(await reached(httpsPort, 'empty.test'), '', 'a host without endpoints: closed at once');
      await sleep(50);
      const serious = nginx.errorLog().split('\n').filter((line) => /\[(alert|crit|emerg)\]|js exception/u.test(line));
      assert.deepEqual(serious, []);
    } finally {
      await nginx.stop();
    }
  });
});
