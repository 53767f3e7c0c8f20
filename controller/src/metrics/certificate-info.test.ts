// ssl_certificate_info: the labels ingress-nginx derived from the leaf (issuer,
// decimal serial, key algorithm, identifier), one series per served host,
// rebuilt whole on every sync.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { createSelfSignedCertificate } from '../tls/self-signed.ts';
import type { Certificate, TlsState } from '../model/types.ts';
import { certificateFacts, createCertificateInfoMetric } from './certificate-info.ts';

const rsa = createSelfSignedCertificate({ commonName: 'Shop CA', organization: 'Shop Inc', dnsNames: ['a.shop.test'], serial: '0102' });
// Our generator signs with RSA only: openssl makes the ECDSA one.
const ec = {
  cert: execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', '/dev/null',
    '-subj', '/CN=Edge CA', '-set_serial', '255', '-days', '30'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
};

void describe('certificateFacts', () => {
  const rows = [
    { name: 'RSA with issuer O and CN; serial 0x0102 in decimal', pem: rsa.cert,
      expected: { identifier: '-258', issuer_organization: 'Shop Inc', issuer_common_name: 'Shop CA', serial_number: '258', public_key_algorithm: 'RSA' } },
    { name: 'ECDSA without issuer O', pem: ec.cert,
      expected: { identifier: '-255', issuer_organization: '', issuer_common_name: 'Edge CA', serial_number: '255', public_key_algorithm: 'ECDSA' } },
    { name: 'not a certificate', pem: 'PEM', expected: null },
  ];
  for (const row of rows) void it(row.name, () => assert.deepEqual(certificateFacts(row.pem), row.expected));
});

const certificate = (namespace: string, name: string, pem: string): Certificate => ({
  id: `${namespace}/${name}`, secret: { namespace, name }, cert: pem, key: 'KEY', names: [], serial: '', notAfter: '2030-01-01T00:00:00.000Z',
});
const A = certificate('shop', 'a-tls', rsa.cert);
const E = certificate('edge', 'e-tls', ec.cert);
const tls = (certificates: Certificate[], hosts: [string, string][], defaultCertificate: string | null = null): TlsState => ({
  certificates, hosts: hosts.map(([host, id]) => ({ host, certificate: id })), defaultCertificate,
});

async function series(registry: Registry): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((l) => l.startsWith('nginx_ingress_controller_ssl_certificate_info{')).sort();
}

void describe('ssl_certificate_info', () => {
  const rsaLabels = 'identifier="-258",issuer_organization="Shop Inc",issuer_common_name="Shop CA",serial_number="258",public_key_algorithm="RSA"';
  const ecLabels = 'identifier="-255",issuer_organization="",issuer_common_name="Edge CA",serial_number="255",public_key_algorithm="ECDSA"';
  const rows: { name: string; syncs: TlsState[]; expected: string[] }[] = [
    { name: 'one series per host, value 1', syncs: [tls([A, E], [['a.shop.test', A.id], ['x.edge.test', E.id]])], expected: [
      `nginx_ingress_controller_ssl_certificate_info{namespace="edge",class="nginx",host="x.edge.test",secret_name="e-tls",${ecLabels}} 1`,
      `nginx_ingress_controller_ssl_certificate_info{namespace="shop",class="nginx",host="a.shop.test",secret_name="a-tls",${rsaLabels}} 1`,
    ] },
    { name: 'the default certificate under host _', syncs: [tls([E], [], E.id)], expected: [
      `nginx_ingress_controller_ssl_certificate_info{namespace="edge",class="nginx",host="_",secret_name="e-tls",${ecLabels}} 1`,
    ] },
    { name: 'a rotation replaces the series (new serial), nothing left behind', syncs: [tls([A], [['a.shop.test', A.id]]), tls([{ ...A, cert: ec.cert }], [['a.shop.test', A.id]])], expected: [
      `nginx_ingress_controller_ssl_certificate_info{namespace="shop",class="nginx",host="a.shop.test",secret_name="a-tls",${ecLabels}} 1`,
    ] },
    { name: 'an unparsable PEM or an unknown id is skipped', syncs: [tls([certificate('shop', 'bad', 'PEM')], [['b.test', 'shop/bad'], ['c.test', 'shop/none']])], expected: [] },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const registry = new Registry();
      const metric = createCertificateInfoMetric({ registry, ingressClass: 'nginx' });
      for (const state of row.syncs) metric.served(state);
      assert.deepEqual(await series(registry), row.expected);
    });
  }
});
