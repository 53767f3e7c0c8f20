// The stream endpoint feed: the requests the controller writes, and njs's own
// checks in the real NGINX (rootfs/etc/nginx/njs/resty_stream.js): a request
// that is not well-formed is refused whole, nothing of it stored, and what was
// fed before keeps serving.
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import type { StreamService } from '../model/types.ts';
import { renderConfig } from '../render/render-config.ts';
import { streamFeedSocketPath } from '../render/render-options.ts';
import { goldenOptions, model } from '../render/testdata/model-fixtures.ts';
import { makePrefix, startNginx, type RunningNginx } from '../render/testdata/nginx-runner.ts';
import { findDataplane } from './dataplane.ts';
import { feedRequest, feedStreams, parseStats, readStreamStats, setRequest, StreamFeedError } from './stream-feed.ts';

void describe('feed requests', () => {
  void it('a set names every listener, IPv6 in brackets, and ends in an empty line', () => {
    assert.equal(setRequest(7, [
      { protocol: 'TCP', port: 9000, endpoints: [{ address: '10.0.0.1', port: 80 }, { address: 'fd00::2', port: 81 }] },
      { protocol: 'UDP', port: 53, endpoints: [] },
    ]), 'set 7\nTCP/9000 10.0.0.1:80 [fd00::2]:81\nUDP/53\n\n');
  });

  const refused: { name: string; call: () => unknown }[] = [
    { name: 'a host name', call: () => setRequest(1, [{ protocol: 'TCP', port: 9000, endpoints: [{ address: 'db.local', port: 80 }] }]) },
    { name: 'an IPv6 zone', call: () => setRequest(1, [{ protocol: 'TCP', port: 9000, endpoints: [{ address: 'fe80::1%eth0', port: 80 }] }]) },
    { name: 'port 0', call: () => setRequest(1, [{ protocol: 'TCP', port: 9000, endpoints: [{ address: '10.0.0.1', port: 0 }] }]) },
    { name: 'a listener port out of range', call: () => setRequest(1, [{ protocol: 'UDP', port: 65536, endpoints: [] }]) },
    { name: 'version 0', call: () => setRequest(0, []) },
  ];
  for (const row of refused) void it(`refuses ${row.name}`, () => assert.throws(row.call, StreamFeedError));

  void it('stats: strict lines, the others left out', () => {
    assert.deepEqual(parseStats('version 4\nTCP/9000 3 10 20 1\nbogus line\nUDP/53 1 2 3 0\n'), {
      version: 4,
      listeners: [
        { key: 'TCP/9000', connections: 3, bytesIn: 10, bytesOut: 20, failed: 1 },
        { key: 'UDP/53', connections: 1, bytesIn: 2, bytesOut: 3, failed: 0 },
      ],
    });
    assert.throws(() => parseStats('error unknown command\n'), StreamFeedError);
  });
});

/** One connection through the listener: the backend's one-word answer ('' when closed at once). */
function once(port: number): Promise<string> {
  return new Promise((done) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write('x'));
    socket.setTimeout(3000, () => socket.destroy());
    socket.on('data', (chunk) => { answer += chunk.toString(); });
    socket.on('close', () => done(answer));
    socket.on('error', () => undefined);
  });
}

void describe('njs refuses a feed that is not well-formed, whole', () => {
  let nginx: RunningNginx;
  let port = 0;
  let socket = '';
  let backend: Server | null = null;
  before(async () => {
    backend = createServer((client) => { client.once('data', () => client.end('good')); client.on('error', () => client.destroy()); });
    await new Promise<void>((done) => backend?.listen(0, '127.0.0.1', done));
    const [httpPort, httpsPort, statusPort] = await Promise.all([1, 2, 3].map(() => freePort()));
    port = await freePort();
    const service: StreamService = { port, protocol: 'TCP', namespace: 'default', service: 'echo', servicePort: 80, proxyProtocol: { decode: false, encode: false }, endpoints: [] };
    const dataplane = findDataplane();
    const prefix = makePrefix();
    const { conf } = renderConfig({ ...model([], []), streams: [service] }, { ...goldenOptions(dataplane, prefix), httpPort, httpsPort, statusPort });
    nginx = await startNginx(dataplane, prefix, conf, `http://127.0.0.1:${statusPort}/config-version`);
    socket = streamFeedSocketPath(prefix);
    await feedStreams(socket, 5, [{ protocol: 'TCP', port, endpoints: [{ address: '127.0.0.1', port: (backend?.address() as AddressInfo).port }] }]);
  });
  after(async () => { backend?.close(); await nginx?.stop(); });

  const rows: { name: string; request: () => string; reason: RegExp }[] = [
    { name: 'an unknown command', request: () => 'get\n\n', reason: /unknown command/u },
    { name: 'version 0', request: () => `set 0\nTCP/${port} 127.0.0.1:80\n\n`, reason: /bad version/u },
    { name: 'a version that is not a number', request: () => `set 1e3\nTCP/${port} 127.0.0.1:80\n\n`, reason: /bad version/u },
    { name: 'a listener on port 0', request: () => 'set 9\nTCP/0 127.0.0.1:80\n\n', reason: /bad listener/u },
    { name: 'a listener above 65535', request: () => 'set 9\nTCP/70000 127.0.0.1:80\n\n', reason: /bad listener/u },
    { name: 'a protocol in lower case', request: () => `set 9\ntcp/${port} 127.0.0.1:80\n\n`, reason: /bad listener/u },
    { name: 'a listener twice', request: () => `set 9\nTCP/${port} 127.0.0.1:80\nTCP/${port}\n\n`, reason: /twice/u },
    ...['db.local:80', 'unix:/tmp/x.sock', 'tcp-9000', '127.0.0.1', '127.0.0.1:0', '127.0.0.1:65536', '256.0.0.1:80', '01.2.3.4:80',
      '127.0.0.1:80;', '[::1]', '[zz::1]:80', '[1:2:3:4:5:6:7:8:9]:80', '[1::2::3]:80', '[fe80::1%eth0]:80', '127.0.0.1:80\u0000']
      .map((peer) => ({ name: `peer ${JSON.stringify(peer)}`, request: () => `set 9\nTCP/${port} 127.0.0.1:80 ${peer}\n\n`, reason: /bad peer/u })),
  ];
  for (const row of rows) {
    void it(`refuses ${row.name}; the fed endpoints still serve`, async () => {
      const answer = await feedRequest(socket, row.request().replace('PORT', String(port)));
      assert.match(answer, /^error /u);
      assert.match(answer, row.reason);
      assert.equal((await readStreamStats(socket)).version, 5, 'nothing stored');
      assert.equal(await once(port), 'good');
    });
  }
  void it('a request cut short (the client closes before the empty line) stores nothing', async () => {
    const answer = await new Promise<string>((done) => {
      let text = '';
      const client = connect(socket, () => client.end(`set 9\nTCP/${port} 127.0.0.1:80\n`));
      client.on('data', (chunk) => { text += chunk.toString(); });
      client.on('close', () => done(text));
      client.on('error', () => undefined);
    });
    assert.ok(!answer.startsWith('ok'), `answer ${JSON.stringify(answer)}`);
    assert.equal((await readStreamStats(socket)).version, 5, 'nothing stored');
    assert.equal(await once(port), 'good');
  });
  void it('accepts IPv6 peers in brackets, an embedded IPv4 included', async () => {
    assert.equal(await feedRequest(socket, `set 10\nTCP/${port} [fd00::2]:80 [::ffff:10.0.0.1]:80 [1:2:3:4:5:6:7:8]:1\nUDP/53\n\n`), 'ok 10\n');
    await feedStreams(socket, 11, [{ protocol: 'TCP', port, endpoints: [] }]);
    assert.equal(await once(port), '', 'no endpoint: closed at once');
  });
});
