// TCP/UDP services (Model.streams) through a rendered nginx.conf: what the
// stream {} context holds, what render refuses, and real traffic through the
// data-plane NGINX: TCP bytes echoed, PROXY protocol decoded from the client
// and sent to the backend, a UDP datagram answered, a listener without
// endpoints closing connections at once.
// Fails (never skips) without the runtime: the test command runs setup first.

import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { after, describe, it } from 'node:test';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import type { Model, StreamService } from '../model/types.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { RenderError } from './nginx-values.ts';
import { renderConfig } from './render-config.ts';
import { goldenOptions, model, PLACEHOLDER_DATAPLANE } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx } from './testdata/nginx-runner.ts';

function tcp(port: number, endpoints: StreamService['endpoints'], proxy = { decode: false, encode: false }): StreamService {
  return { port, protocol: 'TCP', namespace: 'default', service: 'echo', servicePort: 8080, proxyProtocol: proxy, endpoints };
}

function withStreams(streams: readonly StreamService[]): Model {
  return { ...model([], []), streams };
}

void describe('stream {} rendering', () => {
  void it('no streams: neither the stream module nor a stream {} context', () => {
    const { conf } = renderConfig(model([], []), goldenOptions());
    assert.ok(!conf.includes('ngx_stream_module.so'));
    assert.ok(!/^stream \{/mu.test(conf));
  });

  void it('a TCP service: the module is loaded before anything else, one upstream and one server', () => {
    const { conf } = renderConfig(withStreams([tcp(9000, [{ address: '10.0.0.1', port: 80 }])]), goldenOptions());
    assert.match(conf, /^load_module "\/golden\/dataplane\/modules\/ngx_stream_module\.so";$/mu);
    assert.ok(conf.indexOf('ngx_stream_module.so') < conf.indexOf('daemon off;'));
    assert.match(conf, /upstream "tcp-9000" \{\n\s+server "10\.0\.0\.1:80";\n\s+\}/u);
    assert.match(conf, /listen "127\.0\.0\.1:9000";/u);
  });

  void it('an endpoint change changes nginx.conf and its version (endpoints are static in stream {})', () => {
    const before = renderConfig(withStreams([tcp(9000, [{ address: '10.0.0.1', port: 80 }])]), goldenOptions());
    const after = renderConfig(withStreams([tcp(9000, [{ address: '10.0.0.2', port: 80 }])]), goldenOptions());
    assert.notEqual(before.version, after.version);
    assert.match(after.conf, /server "10\.0\.0\.2:80";/u);
  });

  const refusals: ReadonlyArray<{ name: string; streams: StreamService[]; code: string; options?: Parameters<typeof goldenOptions> }> = [
    { name: 'an endpoint that is not an IP address', streams: [tcp(9000, [{ address: 'evil;}', port: 80 }])], code: 'UnsafeValue' },
    { name: 'a port out of range', streams: [tcp(70000, [])], code: 'UnsafeValue' },
    { name: 'no stream module in the options', streams: [tcp(9000, [])], code: 'InvalidOptions', options: [{ ...PLACEHOLDER_DATAPLANE, streamModule: undefined }] },
  ];
  for (const row of refusals) {
    void it(`refuses ${row.name}`, () => {
      assert.throws(() => renderConfig(withStreams(row.streams), goldenOptions(...(row.options ?? []))),
        (error: unknown) => error instanceof RenderError && error.code === row.code);
    });
  }
});

/** A TCP server answering every byte with itself; records what it received. */
async function echoServer(): Promise<{ server: Server; port: number; received: () => string }> {
  let received = '';
  const server = createServer((socket) => socket.on('data', (chunk) => {
    received += chunk.toString('latin1');
    socket.write(chunk);
  }));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, port: (server.address() as AddressInfo).port, received: () => received };
}

/** Sends `text` on a TCP connection and collects the answer until it ends with `until`. */
function exchange(port: number, text: string, until: string): Promise<string> {
  return new Promise((done, fail) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    socket.setTimeout(5000, () => socket.destroy(new Error(`no full answer within 5 s (got ${JSON.stringify(answer)})`)));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.endsWith(until)) socket.end();
    });
    socket.on('close', () => done(answer));
    socket.on('error', fail);
  });
}

void describe('stream {} in the real NGINX', () => {
  void it('TCP bytes in = bytes out, PROXY decoded from the client and sent to the backend, a UDP datagram answered', async () => {
    const plain = await echoServer();
    const proxied = await echoServer();
    after(() => { plain.server.close(); proxied.server.close(); });
    const udp = createSocket('udp4');
    udp.on('message', (message, from) => udp.send(Buffer.concat([Buffer.from('echo:'), message]), from.port, from.address));
    await new Promise<void>((done) => udp.bind(0, '127.0.0.1', done));
    after(() => udp.close());
    const [httpPort, httpsPort, statusPort, tcpPort, proxyPort, udpPort, emptyPort] = await Promise.all([1, 2, 3, 4, 5, 6, 7].map(() => freePort()));
    const dataplane = findDataplane();
    const prefix = makePrefix();
    const streams: StreamService[] = [
      tcp(tcpPort, [{ address: '127.0.0.1', port: plain.port }]),
      tcp(proxyPort, [{ address: '127.0.0.1', port: proxied.port }], { decode: true, encode: true }),
      { ...tcp(udpPort, [{ address: '127.0.0.1', port: udp.address().port }]), protocol: 'UDP' },
      tcp(emptyPort, []),
    ];
    const { conf } = renderConfig(withStreams(streams), { ...goldenOptions(dataplane, prefix), httpPort, httpsPort, statusPort });
    const nginx = await startNginx(dataplane, prefix, conf, `http://127.0.0.1:${statusPort}/config-version`);
    try {
      const payload = `hello ${'x'.repeat(70_000)} bye\n`;
      assert.equal(await exchange(tcpPort, payload, 'bye\n'), payload);

      const header = 'PROXY TCP4 192.0.2.7 127.0.0.1 40000 9000\r\n';
      const answer = await exchange(proxyPort, `${header}ping\n`, 'ping\n');
      // The client's header is consumed by NGINX; the backend gets NGINX's own header, then the bytes.
      assert.match(answer, /^PROXY TCP4 127\.0\.0\.1 127\.0\.0\.1 \d+ \d+\r\nping\n$/u);
      assert.equal(proxied.received(), answer);

      const client = createSocket('udp4');
      after(() => client.close());
      const reply = await new Promise<string>((done, fail) => {
        const timer = setTimeout(() => fail(new Error('no UDP answer within 5 s')), 5000);
        client.once('message', (message) => { clearTimeout(timer); done(message.toString()); });
        client.send('dns?', udpPort, '127.0.0.1');
      });
      assert.equal(reply, 'echo:dns?');

      // No ready endpoint: the listener accepts and closes at once, nothing is answered.
      assert.equal(await exchange(emptyPort, 'anyone?\n', '\n'), '');
      const serious = nginx.errorLog().split('\n').filter((line) => /\[(error|alert|crit|emerg)\]/u.test(line));
      assert.deepEqual(serious.filter((line) => !line.includes('no live upstreams')), []);
      assert.equal(serious.length, 1, 'the empty upstream is the one error: no live upstreams');
    } finally {
      await nginx.stop();
    }
  });
});
