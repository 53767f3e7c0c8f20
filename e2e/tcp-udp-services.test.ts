// E2E TCP/UDP services (--tcp-services-configmap / --udp-services-configmap)
// through the real controller, real NGINX and real kubectl: a TCP echo
// backend reached through the configured port (bytes in = bytes out), PROXY
// protocol decoded from the client and sent to the backend (checked by what
// the backend receives), a UDP datagram answered, a bad entry and one on the
// controller's own HTTP port skipped with Warning Events on the ConfigMap
// while the good ones serve, as is one on a port another process holds (NGINX
// could not bind it: without the check the whole reload would fail), and an endpoint change followed by new
// connections without a reload (fed to njs: docs/tcp-udp-services.md), fed again
// after NGINX is killed and restarted, and the per-listener counters in /metrics.
// The "pods" are servers of this process on a loopback address, published
// with selector-less Services and EndpointSlices.
import assert from 'node:assert/strict';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { test } from 'node:test';
import { freePorts, startStack, waitFor, yamlDocuments } from './harness/index.ts';

/** A loopback address outside the simulator's pool, for this test's own servers. */
function ownAddress(pool: string): string {
  const [, second] = pool.split('.');
  return `127.${(Number(second) + 64) % 256 || 1}.9.${10 + Math.floor(Math.random() * 200)}`;
}

interface TcpBackend {
  readonly server: Server;
  readonly port: number;
  /** Everything received so far, over all connections. */
  received(): string;
}

/** A TCP backend that answers `<name>:` and then echoes every byte it receives. */
async function tcpBackend(address: string, name: string): Promise<TcpBackend> {
  let received = '';
  const server = createServer((socket) => {
    socket.write(`${name}:`);
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      socket.write(chunk);
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((done) => server.listen(0, address, done));
  return { server, port: (server.address() as AddressInfo).port, received: () => received };
}

/** Sends `text` through NGINX's port and collects the answer until it ends with `until` (or the connection closes). */
function exchange(port: number, text: string, until: string): Promise<string> {
  return new Promise((done, fail) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    socket.setTimeout(3000, () => socket.destroy(new Error(`no full answer within 3 s (got ${JSON.stringify(answer)})`)));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.endsWith(until)) socket.end();
    });
    socket.on('close', () => done(answer));
    socket.on('error', fail);
  });
}

function udpAsk(port: number, text: string): Promise<string> {
  const client = createSocket('udp4');
  return new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error('no UDP answer within 1 s')), 1000);
    client.once('message', (message) => { clearTimeout(timer); done(message.toString()); });
    client.send(text, port, '127.0.0.1');
  }).finally(() => client.close());
}

/** A selector-less Service with one port and its EndpointSlice pointing at `address:targetPort`. */
function serviceManifest(name: string, protocol: 'TCP' | 'UDP', port: number, portName: string, address: string, targetPort: number): string {
  return yamlDocuments([
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ name: portName, port, protocol }] } },
    {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: `${name}-manual`, namespace: 'default', labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [address], conditions: { ready: true } }],
      ports: [{ name: portName, port: targetPort, protocol }],
    },
  ]);
}

test('TCP and UDP services: echo, PROXY protocol, a datagram, bad entries skipped with Events', async (t) => {
  const [tcpPort, proxyPort, badPort, udpPort, heldPort] = await freePorts(5);
  // Another process on NGINX's address holds this one.
  const holder = createServer();
  await new Promise<void>((done) => holder.listen(heldPort, '127.0.0.1', done));
  t.after(() => holder.close());
  const { cluster, controller } = await startStack(t, {
    controller: { args: ['--tcp-services-configmap', 'default/tcp-services', '--udp-services-configmap', 'default/udp-services'] },
  });
  const address = ownAddress(cluster.addressPool);
  const first = await tcpBackend(address, 'first');
  const second = await tcpBackend(address, 'second');
  const proxied = await tcpBackend(address, 'proxied');
  const udp: UdpSocket = createSocket('udp4');
  udp.on('message', (message, from) => udp.send(Buffer.concat([Buffer.from('dns:'), message]), from.port, from.address));
  await new Promise<void>((done) => udp.bind(0, address, done));
  t.after(() => {
    for (const backend of [first, second, proxied]) backend.server.close();
    udp.close();
  });
  const httpPort = Number(new URL(controller.http).port);

  await cluster.apply([
    serviceManifest('echo', 'TCP', 9000, 'echo', address, first.port),
    serviceManifest('proxied', 'TCP', 9100, 'pp', address, proxied.port),
    serviceManifest('dns', 'UDP', 53, 'dns', address, udp.address().port),
    yamlDocuments([
      {
        apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tcp-services', namespace: 'default' },
        data: {
          [String(tcpPort)]: 'default/echo:echo',
          [String(proxyPort)]: 'default/proxied:9100:PROXY:PROXY',
          [String(badPort)]: 'default/echo',
          [String(httpPort)]: 'default/echo:9000',
          [String(heldPort)]: 'default/echo:9000',
        },
      },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'udp-services', namespace: 'default' }, data: { [String(udpPort)]: 'default/dns:53' } },
    ]),
  ].join('---\n'));

  // Bytes in = bytes out, by Service port name, 100 kB through one connection.
  const payload = `${'0123456789'.repeat(10_000)}end\n`;
  const echoed = await waitFor('the TCP service answers', async () => {
    const answer = await exchange(tcpPort, payload, 'end\n').catch(() => '');
    return answer === `first:${payload}` ? answer : undefined;
  }, { timeoutMs: 20_000, intervalMs: 200 });
  assert.equal(echoed.length, 'first:'.length + payload.length);

  // PROXY from the client is consumed by NGINX; the backend receives NGINX's own header, then the bytes.
  const clientHeader = 'PROXY TCP4 192.0.2.7 127.0.0.1 40000 9100\r\n';
  const answer = await exchange(proxyPort, `${clientHeader}ping\n`, 'ping\n');
  assert.match(answer, /^proxied:PROXY TCP4 127\.0\.0\.1 \S+ \d+ \d+\r\nping\n$/u);
  assert.match(proxied.received(), /^PROXY TCP4 127\.0\.0\.1 \S+ \d+ \d+\r\nping\n$/u);
  assert.ok(!proxied.received().includes('192.0.2.7'), 'the client\'s own PROXY header never reaches the backend');

  assert.equal(await waitFor('the UDP service answers', () => udpAsk(udpPort, 'query').catch(() => undefined), { timeoutMs: 10_000, intervalMs: 200 }), 'dns:query');

  // Per-listener counters in /metrics (kept by njs when a session ends): the 100 kB echo's bytes both ways.
  assert.ok(controller.metricsUrl !== undefined, 'the controller serves /metrics');
  const labels = `protocol="TCP",port="${tcpPort}",namespace="default",service="echo"`;
  const counted = await waitFor('the echo listener\'s counters', async () => {
    const text = await (await fetch(controller.metricsUrl ?? '')).text();
    const value = (name: string, extra = ''): number => Number(new RegExp(`^${name}\\{${labels}${extra}[^}]*\\} (\\d+)$`, 'mu').exec(text)?.[1] ?? 0);
    const row = { connections: value('resty_ingress_stream_connections_total'), in: value('resty_ingress_stream_bytes_total', ',direction="in"'),
      out: value('resty_ingress_stream_bytes_total', ',direction="out"'), udp: /^resty_ingress_stream_connections_total\{protocol="UDP",[^}]*service="dns"[^}]*\} [1-9]/mu.test(text) };
    return row.in >= payload.length ? row : undefined;
  }, { timeoutMs: 10_000, intervalMs: 200 });
  assert.ok(counted.connections >= 1, `connections counted: ${JSON.stringify(counted)}`);
  assert.ok(counted.out >= 'first:'.length + payload.length, `bytes to the client counted: ${JSON.stringify(counted)}`);
  assert.ok(counted.udp, 'the UDP session is counted');

  // The bad entry and the one on the HTTP port: skipped, each with a Warning on the ConfigMap.
  const warnings = await waitFor('Warning Events on the TCP services ConfigMap', async () => {
    const events = await cluster.events('involvedObject.name=tcp-services,type=Warning');
    const reasons = events.map((event) => event.reason).sort();
    return ['InvalidStreamService', 'ReservedStreamPort', 'StreamPortUnavailable'].every((reason) => reasons.includes(reason)) ? events : undefined;
  }, { timeoutMs: 10_000, intervalMs: 200 });
  assert.ok(warnings.every((event) => event.involvedObject.kind === 'ConfigMap'));
  assert.match(warnings.find((event) => event.reason === 'ReservedStreamPort')?.message ?? '', new RegExp(`port ${httpPort} is the controller's own --http-port port`, 'u'));
  assert.match(warnings.find((event) => event.reason === 'InvalidStreamService')?.message ?? '', new RegExp(`TCP service "${badPort}" is not served`, 'u'));
  assert.match(warnings.find((event) => event.reason === 'StreamPortUnavailable')?.message ?? '', new RegExp(`cannot listen on port ${heldPort} \\(EADDRINUSE`, 'u'));
  await assert.rejects(exchange(badPort, 'x', 'x'), /ECONNREFUSED/u);
  // The HTTP listener is still HTTP.
  const res = await fetch(`${controller.http}/`, { headers: { host: 'nothing.test' } });
  assert.equal(res.status, 404);
  await res.arrayBuffer();

  // The endpoint moves to another backend: new connections reach it, fed to njs without a reload.
  const reloadsBefore = controller.reloadCount();
  await cluster.apply(serviceManifest('echo', 'TCP', 9000, 'echo', address, second.port));
  await waitFor('new connections reach the new endpoint', async () => {
    const moved = await exchange(tcpPort, 'again\n', 'again\n').catch(() => '');
    return moved === 'second:again\n' ? true : undefined;
  }, { timeoutMs: 20_000, intervalMs: 200 });
  assert.equal(controller.reloadCount(), reloadsBefore, 'a stream endpoint change reloads nothing (njs, docs/tcp-udp-services.md)');

  // NGINX killed: the restarted one starts with empty njs dicts, and the controller feeds them again.
  const master = controller.nginxMasterPid();
  assert.ok(master !== null, 'an NGINX master runs');
  process.kill(master, 'SIGKILL');
  await waitFor('the restarted NGINX serves the TCP service again', async () => {
    const restarted = controller.nginxMasterPid();
    if (restarted === null || restarted === master) return undefined;
    return (await exchange(tcpPort, 'back\n', 'back\n').catch(() => '')) === 'second:back\n' ? true : undefined;
  }, { timeoutMs: 20_000, intervalMs: 200 });
});
