// ssl_expire_time_seconds follows the served certificates from sync to sync:
// one series per host, the default certificate under `_`, and nothing left
// behind for hosts or certificates that are gone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { Certificate, TlsState } from '../model/types.ts';
import { createCertificateExpiryMetric } from './certificate-expiry.ts';

const cert = (namespace: string, name: string, notAfter: string): Certificate => ({
  id: `${namespace}/${name}`, secret: { namespace, name }, cert: 'PEM', key: 'KEY', names: [], serial: '01', notAfter,
});
const A = cert('shop', 'a-tls', '2030-01-01T00:00:00.000Z');
const A_ROTATED = cert('shop', 'a-tls', '2031-01-01T00:00:00.000Z');
const WILD = cert('edge', 'wild-tls', '2029-06-01T00:00:00.000Z');
const tls = (certificates: Certificate[], hosts: [string, string][], defaultCertificate: string | null = null): TlsState => ({
  certificates, hosts: hosts.map(([host, certificate]) => ({ host, certificate })), defaultCertificate,
});

/** Every series of the gauge as `labels value`, sorted. */
async function series(registry: Registry): Promise<string[]> {
  const text = await registry.metrics();
  return text.split('\n').filter((line) => line.startsWith('nginx_ingress_controller_ssl_expire_time_seconds{')).map((line) => line.slice(line.indexOf('{'))).sort();
}

const line = (namespace: string, host: string, secret: string, at: string): string =>
  `{namespace="${namespace}",class="resty",host="${host}",secret_name="${secret}"} ${Date.parse(at) / 1000}`;

void describe('ssl_expire_time_seconds', () => {
  const rows: { name: string; syncs: TlsState[]; expected: string[] }[] = [
    { name: 'one series per host, the Secret\'s namespace and name', syncs: [tls([A, WILD], [['a.shop.test', A.id], ['*.edge.test', WILD.id], ['b.shop.test', A.id]])],
      expected: [line('edge', '*.edge.test', 'wild-tls', WILD.notAfter), line('shop', 'a.shop.test', 'a-tls', A.notAfter), line('shop', 'b.shop.test', 'a-tls', A.notAfter)].sort() },
    { name: '--default-ssl-certificate under host _', syncs: [tls([WILD], [], WILD.id)],
      expected: [line('edge', '_', 'wild-tls', WILD.notAfter)] },
    { name: 'a host that lost its certificate loses its series', syncs: [tls([A], [['a.shop.test', A.id], ['b.shop.test', A.id]]), tls([A], [['a.shop.test', A.id]])],
      expected: [line('shop', 'a.shop.test', 'a-tls', A.notAfter)] },
    { name: 'a deleted Secret leaves nothing behind', syncs: [tls([A], [['a.shop.test', A.id]]), tls([], [])], expected: [] },
    { name: 'a rotation moves the expiry of the same series', syncs: [tls([A], [['a.shop.test', A.id]]), tls([A_ROTATED], [['a.shop.test', A.id]])],
      expected: [line('shop', 'a.shop.test', 'a-tls', A_ROTATED.notAfter)] },
    { name: 'a host naming an unknown certificate or an unreadable date is skipped, not NaN',
      syncs: [tls([cert('shop', 'bad-tls', 'not a date')], [['x.test', 'shop/missing'], ['y.test', 'shop/bad-tls']])], expected: [] },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const registry = new Registry();
      const metric = createCertificateExpiryMetric({ registry, ingressClass: 'resty' });
      for (const state of row.syncs) metric.served(state);
      assert.deepEqual(await series(registry), row.expected);
    });
  }
});
