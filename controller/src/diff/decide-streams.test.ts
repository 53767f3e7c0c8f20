// TCP/UDP services: the listeners (port, protocol, PROXY flags) are in nginx.conf, so a change
// reloads; their endpoints are fed to njs (DynamicPush.streams), never a reload.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import type { DynamicStream, Model, StreamService } from '../model/types.ts';
import { decideApply, sameStaticPart } from './decide.ts';

function stream(port: number, addresses: readonly string[], decode = false): StreamService {
  return {
    port, protocol: 'TCP', namespace: 'default', service: 'echo', servicePort: 8080, proxyProtocol: { decode, encode: false },
    endpoints: addresses.map((address) => ({ address, port: 9000 })),
  };
}

function model(streams: readonly StreamService[] | null): Model {
  return {
    servers: [], backends: [], tls: { certificates: [], hosts: [], defaultCertificate: null }, settings: DEFAULT_SETTINGS, routes: [],
    ...(streams === null ? {} : { streams }),
  };
}

function fed(port: number, addresses: readonly string[]): DynamicStream {
  return { protocol: 'TCP', port, endpoints: addresses.map((address) => ({ address, port: 9000 })) };
}

void describe('decideApply: stream services', () => {
  const rows: { name: string; from: Model; to: Model; empty?: boolean; kind: string; streams: DynamicStream[] | null }[] = [
    { name: 'the first TCP service', from: model(null), to: model([stream(9000, ['10.0.0.1'])]), kind: 'reload', streams: [fed(9000, ['10.0.0.1'])] },
    { name: 'an endpoint moves', from: model([stream(9000, ['10.0.0.1'])]), to: model([stream(9000, ['10.0.0.2'])]), kind: 'dynamic', streams: [fed(9000, ['10.0.0.2'])] },
    { name: 'scaled to zero', from: model([stream(9000, ['10.0.0.1'])]), to: model([stream(9000, [])]), kind: 'dynamic', streams: [fed(9000, [])] },
    { name: 'scaled up', from: model([stream(9000, ['10.0.0.1'])]), to: model([stream(9000, ['10.0.0.1', '10.0.0.2'])]), kind: 'dynamic', streams: [fed(9000, ['10.0.0.1', '10.0.0.2'])] },
    { name: 'a port moves', from: model([stream(9000, ['10.0.0.1'])]), to: model([stream(9001, ['10.0.0.1'])]), kind: 'reload', streams: [fed(9001, ['10.0.0.1'])] },
    { name: 'a PROXY flag changes', from: model([stream(9000, ['10.0.0.1'])]), to: model([stream(9000, ['10.0.0.1'], true)]), kind: 'reload', streams: null },
    { name: 'a second port', from: model([stream(9000, ['10.0.0.1'])]), to: model([stream(9000, ['10.0.0.1']), stream(9001, ['10.0.0.1'])]), kind: 'reload', streams: [fed(9000, ['10.0.0.1']), fed(9001, ['10.0.0.1'])] },
    { name: 'the last one goes', from: model([stream(9000, ['10.0.0.1'])]), to: model(null), kind: 'reload', streams: [] },
    { name: 'nothing changes', from: model([stream(9000, ['10.0.0.1'])]), to: model([stream(9000, ['10.0.0.1'])]), kind: 'skip', streams: null },
    { name: 'NGINX restarted: fed again', from: model([stream(9000, ['10.0.0.1'])]), to: model([stream(9000, ['10.0.0.1'])]), empty: true, kind: 'dynamic', streams: [fed(9000, ['10.0.0.1'])] },
    { name: 'NGINX restarted without streams: nothing to feed (routes are pushed)', from: model(null), to: model(null), empty: true, kind: 'dynamic', streams: null },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const decision = decideApply({ model: row.from, dataplaneEmpty: row.empty === true }, row.to);
      assert.equal(decision.kind, row.kind);
      if (decision.kind !== 'skip') assert.deepEqual(decision.streams ?? null, row.streams);
    });
  }

  void it('endpoints are no part of the static model; listeners are', () => {
    assert.equal(sameStaticPart(model([stream(9000, ['10.0.0.1'])]), model([stream(9000, ['10.0.0.9', '10.0.0.8'])])), true);
    assert.equal(sameStaticPart(model([stream(9000, [])]), model([stream(9000, [], true)])), false);
    assert.equal(sameStaticPart(model([]), model(null)), false);
  });
});
