// TCP/UDP services (Model.streams) through a rendered nginx.conf: what the
// stream {} context holds, what render refuses, and real traffic through the
// data-plane NGINX with njs: endpoints fed through the feed socket, TCP bytes
// echoed, PROXY protocol decoded from the client and sent to the backend, a
// UDP datagram answered, a listener without endpoints closing connections at
// once, round robin, a new set used without a reload, a dead peer skipped,
// and the per-listener counters.
// Fails (never skips) without the runtime: the test command runs setup first.

import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import type { DynamicStream, Model, StreamService } from '../model/types.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { feedStreams, readStreamStats } from '../nginx/stream-feed.ts';
import { workerPidsOf } from '../nginx/nginx-processes.ts';
import { RenderError } from './nginx-values.ts';
import { renderConfig } from './render-config.ts';
import { goldenOptions, model, PLACEHOLDER_DATAPLANE } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx, type RunningNginx } from './testdata/nginx-runner.ts';
import { streamFeedSocketPath } from './render-options.ts';

function tcp(port: number, endpoints: StreamService['endpoints'], proxy = { decode: false, encode: false }): StreamService {
  return { port, protocol: 'TCP', namespace: 'default', service: 'echo', servicePort: 8080, proxyProtocol: proxy, endpoints };
}

function withStreams(streams: readonly StreamService[]): Model {
  return { ...model([], []), streams };
}

void describe('stream {} rendering', () => {
  void it('no streams: neither the stream modules nor a stream {} context', () => {
    const { conf } = renderConfig(model([], []), goldenOptions());
    assert.ok(!conf.includes('ngx_stream_module.so') && !conf.includes('ngx_stream_js_module.so'));
    assert.ok(!/^stream \{/mu.test(conf));
  });

  void it('a TCP service: both modules loaded before anything else, the feed socket and one server taking njs\'s peer', () => {
    const { conf } = renderConfig(withStreams([tcp(9000, [{ address: '10.0.0.1', port: 80 }])]), goldenOptions());
    assert.match(conf, /^load_module "\/golden\/dataplane\/modules\/ngx_stream_module\.so";\nload_module "\/golden\/dataplane\/modules\/ngx_stream_js_module\.so";$/mu);
    assert.ok(conf.indexOf('ngx_stream_js_module.so') < conf.indexOf('daemon off;'));
    assert.match(conf, /js_import resty_stream from "\/golden\/njs\/resty_stream\.js";/u);
    assert.match(conf, /listen "unix:\/golden\/prefix\/sockets\/stream-feed\.sock";/u);
    assert.match(conf, /listen "127\.0\.0\.1:9000";\n(?:\s+[^\n]+\n)*?\s+proxy_pass \$resty_stream_peer;/u);
    assert.ok(!conf.includes('10.0.0.1'), 'no endpoint in nginx.conf');
  });

  void it('an endpoint change leaves nginx.conf and its version alone (endpoints are fed to njs)', () => {
    const before = renderConfig(withStreams([tcp(9000, [{ address: '10.0.0.1', port: 80 }])]), goldenOptions());
    const after = renderConfig(withStreams([tcp(9000, [{ address: '10.0.0.2', port: 80 }, { address: '10.0.0.3', port: 80 }])]), goldenOptions());
    assert.equal(after.version, before.version);
    assert.equal(after.conf, before.conf);
  });

  const refusals: ReadonlyArray<{ name: string; streams: StreamService[]; code: string; options?: Parameters<typeof goldenOptions> }> = [
    { name: 'a port out of range', streams: [tcp(70000, [])], code: 'UnsafeValue' },
    { name: 'no stream module in the options', streams: [tcp(9000, [])], code: 'InvalidOptions', options: [{ ...PLACEHOLDER_DATAPLANE, streamModule: undefined }] },
    { name: 'no njs module in the options', streams: [tcp(9000, [])], code: 'InvalidOptions', options: [{ ...PLACEHOLDER_DATAPLANE, streamJsModule: undefined }] },
    { name: 'a relative njs script path', streams: [tcp(9000, [])], code: 'InvalidOptions', options: [{ ...PLACEHOLDER_DATAPLANE, streamScript: 'resty_stream.js' }] },
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

/** A TCP server that answers `<name>` to the first bytes and closes. */
async function namedServer(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    socket.once('data', () => socket.end(name));
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, port: (server.address() as AddressInfo).port };
}

function fed(streams: readonly StreamService[]): DynamicStream[] {
  return streams.map(({ protocol, port, endpoints }) => ({ protocol, port, endpoints }));
}

/** Renders `streams`, starts NGINX on it and feeds their endpoints. */
async function startWith(streams: readonly StreamService[]): Promise<RunningNginx & { feed(next: readonly StreamService[], version: number): Promise<void> }> {
  const [httpPort, httpsPort, statusPort] = await Promise.all([1, 2, 3].map(() => freePort()));
  const dataplane = findDataplane();
  const prefix = makePrefix();
  const { conf } = renderConfig(withStreams(streams), { ...goldenOptions(dataplane, prefix), httpPort, httpsPort, statusPort });
  const nginx = await startNginx(dataplane, prefix, conf, `http://127.0.0.1:${statusPort}/config-version`);
  const feed = (next: readonly StreamService[], version: number): Promise<void> => feedStreams(streamFeedSocketPath(prefix), version, fed(next));
  try {
    await feed(streams, 1);
  } catch (error) {
    await nginx.stop();
    throw error;
  }
  return { ...nginx, feed };
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
    const [tcpPort, proxyPort, udpPort, emptyPort] = await Promise.all([1, 2, 3, 4].map(() => freePort()));
    const streams: StreamService[] = [
      tcp(tcpPort, [{ address: '127.0.0.1', port: plain.port }]),
      tcp(proxyPort, [{ address: '127.0.0.1', port: proxied.port }], { decode: true, encode: true }),
      { ...tcp(udpPort, [{ address: '127.0.0.1', port: udp.address().port }]), protocol: 'UDP' },
      tcp(emptyPort, []),
    ];
    const nginx = await startWith(streams);
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

      // UDP sessions rotate too: two backends, four sessions (a new client socket each), two each.
      const second = createSocket('udp4');
      second.on('message', (message, from) => second.send(Buffer.concat([Buffer.from('other:'), message]), from.port, from.address));
      await new Promise<void>((done) => second.bind(0, '127.0.0.1', done));
      after(() => second.close());
      await nginx.feed([...streams.slice(0, 2), { ...tcp(udpPort, [{ address: '127.0.0.1', port: udp.address().port }, { address: '127.0.0.1', port: second.address().port }]), protocol: 'UDP' }, streams[3]!], 2);
      const replies: string[] = [];
      for (let i = 0; i < 4; i++) {
        const asker = createSocket('udp4');
        replies.push(await new Promise<string>((done, fail) => {
          const timer = setTimeout(() => fail(new Error('no UDP answer within 5 s')), 5000);
          asker.once('message', (message) => { clearTimeout(timer); done(message.toString().split(':')[0] ?? ''); });
          asker.send('q', udpPort, '127.0.0.1');
        }));
        asker.close();
      }
      assert.deepEqual(replies.sort(), ['echo', 'echo', 'other', 'other'], 'round robin over UDP sessions');

      // No ready endpoint: the listener accepts and closes at once, nothing is answered.
      // (closed with the byte unread: a reset may come instead of a plain close)
      assert.equal(await exchange(emptyPort, 'anyone?\n', '\n').catch(() => ''), '');
      const serious = nginx.errorLog().split('\n').filter((line) => /\[(error|alert|crit|emerg)\]/u.test(line));
      assert.deepEqual(serious.filter((line) => !line.includes('upstream: "127.0.0.1:1"')), []);
      assert.equal(serious.length, 1, 'the listener without endpoints is the one error: connect() to its placeholder peer');
    } finally {
      await nginx.stop();
    }
  });

  void it('round robin over the fed endpoints; a new set is used at once, without a reload, and kept across one; a dead peer is skipped', async () => {
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((name) => namedServer(name)));
    const dead = await freePort(); // nothing listens there
    after(() => { for (const s of [a, b, c]) s?.server.close(); });
    const port = await freePort();
    const endpoints = (...ports: number[]): StreamService['endpoints'] => ports.map((p) => ({ address: '127.0.0.1', port: p }));
    const nginx = await startWith([tcp(port, endpoints(a!.port, b!.port))]);
    try {
      const answers: string[] = [];
      for (let i = 0; i < 6; i++) answers.push(await exchange(port, 'x', '\u0000'));
      assert.deepEqual([...answers].sort(), ['a', 'a', 'a', 'b', 'b', 'b'], `round robin: ${answers.join('')}`);
      assert.ok(answers.every((name, i) => i === 0 || name !== answers[i - 1]), `alternates: ${answers.join('')}`);

      await nginx.feed([tcp(port, endpoints(c!.port))], 2);
      assert.equal(await exchange(port, 'x', '\u0000'), 'c', 'the first connection after the feed reaches the new set');

      // A reload (HUP) keeps the shared dict: the new workers pick from what was fed, nothing is fed again.
      const master = Number(readFileSync(join(nginx.prefix, 'nginx.pid'), 'utf8'));
      const workersBefore = workerPidsOf(master).join(',');
      process.kill(master, 'SIGHUP');
      for (let i = 0; i < 100 && workerPidsOf(master).join(',') === workersBefore; i++) await sleep(20);
      assert.notEqual(workerPidsOf(master).join(','), workersBefore, 'new workers after the HUP');
      assert.equal(await exchange(port, 'x', '\u0000'), 'c', 'the new workers pick from the fed set');

      // A peer whose connect fails is skipped for 10 s: at most one connection meets it.
      await nginx.feed([tcp(port, endpoints(dead, c!.port))], 3);
      const after3: string[] = [];
      for (let i = 0; i < 8; i++) after3.push(await exchange(port, 'x', '\u0000').catch(() => 'failed'));
      assert.ok(after3.filter((name) => name !== 'c').length <= 1, `only the first may fail: ${after3.join(',')}`);
      assert.equal(after3.slice(2).join(''), 'cccccc');

      // A session is counted when NGINX finalizes it, just after the client saw the close: wait a little for the last.
      let stats = await readStreamStats(streamFeedSocketPath(nginx.prefix));
      for (let i = 0; i < 50 && stats.listeners.find((listener) => listener.key === `TCP/${port}`)?.connections !== 16; i++) {
        await sleep(20);
        stats = await readStreamStats(streamFeedSocketPath(nginx.prefix));
      }
      assert.equal(stats.version, 3);
      const counters = stats.listeners.find((listener) => listener.key === `TCP/${port}`);
      assert.equal(counters?.connections, 6 + 2 + 8);
      const failed = after3.filter((name) => name !== 'c').length;
      assert.equal(counters?.failed, failed);
      // One byte from the client per connection; a connection whose peer failed proxied none.
      assert.equal(counters?.bytesIn, 16 - failed);
      assert.equal(counters?.bytesOut, 16 - failed);
    } finally {
      await nginx.stop();
    }
  });
});
