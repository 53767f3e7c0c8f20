import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { createSocket } from 'node:dgram';
import { describe, it } from 'node:test';
import type { BuildResult, Model, StreamService } from './model/types.ts';
import { probeStreamPorts, type StreamPort } from './nginx/stream-port-probe.ts';
import { createStreamPortCheck } from './stream-port-check.ts';
import { freePort } from '../../e2e/harness/network.ts';

function service(port: number, protocol: StreamService['protocol'] = 'TCP'): StreamService {
  return { port, protocol, namespace: 'default', service: 'echo', servicePort: 80, proxyProtocol: { decode: false, encode: false }, endpoints: [] };
}

function built(streams: StreamService[]): BuildResult {
  const model: Model = { servers: [], backends: [], tls: { certificates: [], hosts: [], defaultCertificate: null }, settings: {} as Model['settings'], routes: [], streams };
  return { model, failures: [] };
}

const CONFIG_MAPS = { TCP: 'ingress/tcp', UDP: 'ingress/udp' };

void describe('stream port check', () => {
  void it('leaves out a new port that cannot be bound, with a failure on its ConfigMap; the others stay', () => {
    const probed: StreamPort[][] = [];
    const check = createStreamPortCheck('127.0.0.1', CONFIG_MAPS, (_address, ports) => {
      probed.push([...ports]);
      return new Map([['TCP/9001', 'EADDRINUSE']]);
    });
    const result = check.check(built([service(9000), service(9001), service(53, 'UDP')]), null);
    assert.deepEqual(result.model.streams?.map((s) => `${s.protocol}/${s.port}`), ['TCP/9000', 'UDP/53']);
    assert.deepEqual(result.failures.map((f) => [f.reason, f.configMap, f.field]), [['StreamPortUnavailable', 'ingress/tcp', 'ConfigMap ingress/tcp: data[9001]']]);
    assert.match(result.failures[0]?.message ?? '', /cannot listen on port 9001 \(EADDRINUSE: another process listens on it\)/);
    assert.deepEqual(probed, [[{ protocol: 'TCP', port: 9000 }, { protocol: 'TCP', port: 9001 }, { protocol: 'UDP', port: 53 }]]);
  });

  void it('probes only ports NGINX does not hold yet, once per set of new ports; a failure is probed again after 10 s', () => {
    let clock = 0;
    const probed: string[] = [];
    const check = createStreamPortCheck('127.0.0.1', CONFIG_MAPS, (_address, ports) => {
      probed.push(ports.map((p) => p.port).join(','));
      return new Map([['TCP/9001', 'EACCES']]);
    }, () => clock);
    const running = built([service(9000)]).model;
    const next = built([service(9000), service(9001)]);
    assert.equal(check.check(next, running).model.streams?.length, 1);
    assert.equal(check.check(next, running).model.streams?.length, 1);
    assert.deepEqual(probed, ['9001']);
    clock = 10_001;
    check.check(next, running);
    assert.deepEqual(probed, ['9001', '9001']);
    assert.equal(check.check(built([service(9000)]), running).failures.length, 0, 'nothing new: no probe, nothing left out');
    assert.deepEqual(probed, ['9001', '9001']);
  });

  void it('a model without streams is handed on as it is', () => {
    const check = createStreamPortCheck('127.0.0.1', CONFIG_MAPS, () => assert.fail('no probe without streams'));
    const result = built([]);
    const { streams: _none, ...model } = result.model;
    const plain = { model, failures: [] };
    assert.equal(check.check(plain, null), plain);
  });
});

void describe('probeStreamPorts', () => {
  void it('reports a TCP and a UDP port in use, and nothing for free ones', async () => {
    const tcp = createServer();
    await new Promise<void>((done) => tcp.listen(0, '127.0.0.1', done));
    const udp = createSocket('udp4');
    await new Promise<void>((done) => udp.bind(0, '127.0.0.1', done));
    const unused = await freePort();
    try {
      const failed = probeStreamPorts('127.0.0.1', [
        { protocol: 'TCP', port: (tcp.address() as AddressInfo).port },
        { protocol: 'UDP', port: udp.address().port },
        { protocol: 'TCP', port: unused },
      ]);
      assert.deepEqual([...failed.values()], ['EADDRINUSE', 'EADDRINUSE']);
      assert.equal(failed.has(`TCP/${unused}`), false);
    } finally {
      tcp.close();
      udp.close();
    }
  });
});
