// TCP/UDP services are static as a whole: Debian has no stream-lua, so their
// endpoints live in nginx.conf and every change to them reloads (model/l4-types.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import type { Model, StreamService } from '../model/types.ts';
import { decideApply } from './decide.ts';

function stream(port: number, address: string): StreamService {
  return { port, protocol: 'TCP', namespace: 'default', service: 'echo', servicePort: 8080, proxyProtocol: { decode: false, encode: false }, endpoints: [{ address, port: 9000 }] };
}

function model(streams: readonly StreamService[] | null): Model {
  return {
    servers: [], backends: [], tls: { certificates: [], hosts: [], defaultCertificate: null }, settings: DEFAULT_SETTINGS, routes: [],
    ...(streams === null ? {} : { streams }),
  };
}

void describe('decideApply: stream services', () => {
  const rows: { name: string; from: Model; to: Model; kind: string }[] = [
    { name: 'the first TCP service', from: model(null), to: model([stream(9000, '10.0.0.1')]), kind: 'reload' },
    { name: 'an endpoint moves', from: model([stream(9000, '10.0.0.1')]), to: model([stream(9000, '10.0.0.2')]), kind: 'reload' },
    { name: 'a port moves', from: model([stream(9000, '10.0.0.1')]), to: model([stream(9001, '10.0.0.1')]), kind: 'reload' },
    { name: 'the last one goes', from: model([stream(9000, '10.0.0.1')]), to: model(null), kind: 'reload' },
    { name: 'nothing changes', from: model([stream(9000, '10.0.0.1')]), to: model([stream(9000, '10.0.0.1')]), kind: 'skip' },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      assert.equal(decideApply({ model: row.from, dataplaneEmpty: false }, row.to).kind, row.kind);
    });
  }
});
