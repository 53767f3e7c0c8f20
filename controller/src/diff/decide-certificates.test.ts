import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS as settings } from '../model/features/parse.ts';
import type { Certificate, Model } from '../model/types.ts';
import { decideApply, dynamicCertificates, staticPart } from './decide.ts';

function certificate(pem: string): Certificate {
  return { id: 'shop/tls', secret: { namespace: 'shop', name: 'tls' }, cert: pem, key: `key of ${pem}`, names: ['shop.test'], serial: pem, notAfter: '2030-01-01T00:00:00.000Z' };
}

/** `servedPath` changes the static part (a route), `pem` only the dynamic TLS part. */
function model(servedPath: string, pem: string | null): Model {
  return {
    servers: [{ hostname: 'shop.test', locations: [{ path: servedPath, match: 'exact', route: { kind: 'not-found' }, ingress: null, policy: {} }] }],
    backends: [],
    tls: pem === null
      ? { certificates: [], hosts: [], defaultCertificate: null }
      : { certificates: [certificate(pem)], hosts: [{ host: 'shop.test', certificate: 'shop/tls' }], defaultCertificate: null },
    settings,
    routes: [],
  };
}

const rows = [
  { name: 'rotation (same id, new PEM) is dynamic and pushes certificates', running: model('/', 'A'), next: model('/', 'B'), kind: 'dynamic', pushes: true },
  { name: 'Secret deleted (host keeps tls) is dynamic', running: model('/', 'A'), next: model('/', null), kind: 'dynamic', pushes: true },
  { name: 'unchanged certificates: skip, nothing pushed', running: model('/', 'A'), next: model('/', 'A'), kind: 'skip', pushes: false },
  // ssl-redirect is decided in Lua from the pushed hosts: nothing static changes.
  { name: 'TLS added to a served host is dynamic: no reload, certificates pushed', running: model('/', null), next: model('/', 'A'), kind: 'dynamic', pushes: true },
  { name: 'a route change with certificates added: reload, certificates pushed first', running: model('/', null), next: model('/new', 'A'), kind: 'reload', pushes: true },
  { name: 'a static change with the same certificates does not re-push them', running: model('/', 'A'), next: model('/new', 'A'), kind: 'reload', pushes: false },
];

void describe('certificates are dynamic', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const decision = decideApply({ model: row.running, dataplaneEmpty: false }, row.next);
      assert.equal(decision.kind, row.kind);
      if (decision.kind === 'skip') return;
      assert.deepEqual(decision.certificates, row.pushes ? dynamicCertificates(row.next) : null);
    });
  }

  void it('an emptied data plane gets the certificates again', () => {
    const decision = decideApply({ model: model('/', 'A'), dataplaneEmpty: true }, model('/', 'A'));
    assert.equal(decision.kind, 'dynamic');
    assert.deepEqual(decision.kind === 'dynamic' ? decision.certificates : null, dynamicCertificates(model('/', 'A')));
  });

  void it('the pushed form: PEMs by id, host map, default; the static part holds no key', () => {
    assert.deepEqual(dynamicCertificates(model('/', 'A')), {
      certificates: [{ id: 'shop/tls', cert: 'A', key: 'key of A' }], hosts: { 'shop.test': 'shop/tls' }, defaultCertificate: null,
    });
    assert.doesNotMatch(JSON.stringify(staticPart(model('/', 'A'))), /key of/);
  });
});
