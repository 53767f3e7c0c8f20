// SSL passthrough hosts: which hosts pass through (and to which backend) is in nginx.conf, so a
// change reloads; their endpoints are fed to njs with the TCP/UDP services' (DynamicPush.streams,
// `SNI` entries), never a reload (docs/ssl-passthrough.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import type { DynamicStream, Model, PassthroughHost, StreamService } from '../model/types.ts';
import { decideApply, sameStaticPart } from './decide.ts';

function host(hostname: string, addresses: readonly string[], service = 'tls'): PassthroughHost {
  return {
    hostname, backend: `default-${service}-443`, namespace: 'default', service, servicePort: 443, ingress: { namespace: 'default', name: 'p' },
    endpoints: addresses.map((address) => ({ address, port: 8443 })),
  };
}

const tcp: StreamService = {
  port: 9000, protocol: 'TCP', namespace: 'default', service: 'echo', servicePort: 8080, proxyProtocol: { decode: false, encode: false },
  endpoints: [{ address: '10.0.1.1', port: 9000 }],
};

function model(hosts: readonly PassthroughHost[] | null, streams: readonly StreamService[] | null = null): Model {
  return {
    servers: [], backends: [], tls: { certificates: [], hosts: [], defaultCertificate: null }, settings: DEFAULT_SETTINGS, routes: [],
    ...(streams === null ? {} : { streams }),
    ...(hosts === null ? {} : { sslPassthrough: hosts }),
  };
}

function sni(hostname: string, addresses: readonly string[]): DynamicStream {
  return { protocol: 'SNI', hostname, endpoints: addresses.map((address) => ({ address, port: 8443 })) };
}

void describe('decideApply: SSL passthrough hosts', () => {
  const rows: { name: string; from: Model; to: Model; empty?: boolean; kind: string; streams: DynamicStream[] | null }[] = [
    { name: 'the first passthrough host', from: model(null), to: model([host('a.test', ['10.0.0.1'])]), kind: 'reload', streams: [sni('a.test', ['10.0.0.1'])] },
    { name: 'an endpoint moves', from: model([host('a.test', ['10.0.0.1'])]), to: model([host('a.test', ['10.0.0.2'])]), kind: 'dynamic', streams: [sni('a.test', ['10.0.0.2'])] },
    { name: 'scaled to zero', from: model([host('a.test', ['10.0.0.1'])]), to: model([host('a.test', [])]), kind: 'dynamic', streams: [sni('a.test', [])] },
    { name: 'scaled up', from: model([host('a.test', ['10.0.0.1'])]), to: model([host('a.test', ['10.0.0.1', '10.0.0.2'])]), kind: 'dynamic', streams: [sni('a.test', ['10.0.0.1', '10.0.0.2'])] },
    {
      name: 'with TCP services: one full feed, listeners first', from: model([host('a.test', ['10.0.0.1'])], [tcp]), to: model([host('a.test', ['10.0.0.2'])], [tcp]),
      kind: 'dynamic', streams: [{ protocol: 'TCP', port: 9000, endpoints: [{ address: '10.0.1.1', port: 9000 }] }, sni('a.test', ['10.0.0.2'])],
    },
    { name: 'another host', from: model([host('a.test', ['10.0.0.1'])]), to: model([host('a.test', ['10.0.0.1']), host('b.test', ['10.0.0.1'])]), kind: 'reload', streams: [sni('a.test', ['10.0.0.1']), sni('b.test', ['10.0.0.1'])] },
    { name: 'the host goes to another Service', from: model([host('a.test', ['10.0.0.1'])]), to: model([host('a.test', ['10.0.0.1'], 'other')]), kind: 'reload', streams: null },
    { name: 'the last one goes', from: model([host('a.test', ['10.0.0.1'])]), to: model(null), kind: 'reload', streams: [] },
    { name: 'nothing changes', from: model([host('a.test', ['10.0.0.1'])]), to: model([host('a.test', ['10.0.0.1'])]), kind: 'skip', streams: null },
    { name: 'NGINX restarted: fed again', from: model([host('a.test', ['10.0.0.1'])]), to: model([host('a.test', ['10.0.0.1'])]), empty: true, kind: 'dynamic', streams: [sni('a.test', ['10.0.0.1'])] },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const decision = decideApply({ model: row.from, dataplaneEmpty: row.empty === true }, row.to);
      assert.equal(decision.kind, row.kind);
      if (decision.kind !== 'skip') assert.deepEqual(decision.streams ?? null, row.streams);
    });
  }

  void it('endpoints are no part of the static model; the hosts are', () => {
    assert.equal(sameStaticPart(model([host('a.test', ['10.0.0.1'])]), model([host('a.test', ['10.0.0.9', '10.0.0.8'])])), true);
    assert.equal(sameStaticPart(model([host('a.test', [])]), model([host('b.test', [])])), false);
    assert.equal(sameStaticPart(model([]), model(null)), false);
  });
});
