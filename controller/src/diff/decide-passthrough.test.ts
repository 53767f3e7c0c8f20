// SSL passthrough hosts are static as a whole, as the TCP services: their endpoints live in
// stream {}, so any change reloads (docs/ssl-passthrough.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import type { Model, PassthroughHost } from '../model/types.ts';
import { decideApply } from './decide.ts';

function host(hostname: string, address: string): PassthroughHost {
  return { hostname, backend: 'default-tls-443', namespace: 'default', service: 'tls', servicePort: 443, ingress: { namespace: 'default', name: 'p' }, endpoints: [{ address, port: 8443 }] };
}

function model(hosts: readonly PassthroughHost[] | null): Model {
  return {
    servers: [], backends: [], tls: { certificates: [], hosts: [], defaultCertificate: null }, settings: DEFAULT_SETTINGS, routes: [],
    ...(hosts === null ? {} : { sslPassthrough: hosts }),
  };
}

void describe('decideApply: SSL passthrough hosts', () => {
  const rows: { name: string; from: Model; to: Model; kind: string }[] = [
    { name: 'the first passthrough host', from: model(null), to: model([host('a.test', '10.0.0.1')]), kind: 'reload' },
    { name: 'an endpoint moves', from: model([host('a.test', '10.0.0.1')]), to: model([host('a.test', '10.0.0.2')]), kind: 'reload' },
    { name: 'another host', from: model([host('a.test', '10.0.0.1')]), to: model([host('a.test', '10.0.0.1'), host('b.test', '10.0.0.1')]), kind: 'reload' },
    { name: 'the last one goes', from: model([host('a.test', '10.0.0.1')]), to: model(null), kind: 'reload' },
    { name: 'nothing changes', from: model([host('a.test', '10.0.0.1')]), to: model([host('a.test', '10.0.0.1')]), kind: 'skip' },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      assert.equal(decideApply({ model: row.from, dataplaneEmpty: false }, row.to).kind, row.kind);
    });
  }
});
