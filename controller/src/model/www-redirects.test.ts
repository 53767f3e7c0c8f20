// from-to-www-redirect over the cluster, as ingress-nginx v1.15.1's BuildRedirects: the twin of a
// host with the annotation (www. added, or removed from a www. host) gets a redirect server unless
// a server of that name exists (Warning); never for the catch-all or a wildcard. With TLS, the
// Ingress's certificate serves the twin when it names it (the twin is one of its rule hosts).

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1Ingress } from '@kubernetes/client-node';
import { buildModel } from './build.ts';
import { createSelfSignedCertificate } from '../tls/self-signed.ts';
import { ann, ingress, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';
import type { BuildResult } from './types.ts';
import { twinOf } from './www-redirects.ts';

const web = service('web', [{ port: 80 }]);
const www = { [ann('from-to-www-redirect')]: 'true' };

function site(name: string, host: string, annotations: Record<string, string> = www, created = '2024-01-01T00:00:00Z'): V1Ingress {
  return ingress(name, { created, annotations, rules: [rule(host, path('/', svc('web', 80)))] });
}

function twinOfServer(result: BuildResult, host: string): string | undefined {
  return result.model.servers.find((server) => server.hostname === host)?.wwwRedirectFrom;
}

void describe('from-to-www-redirect: the twin', () => {
  const rows: [string, string | null][] = [['shop.test', 'www.shop.test'], ['www.shop.test', 'shop.test'], ['_', null], ['*.shop.test', null], ['wwwshop.test', 'www.wwwshop.test']];
  for (const [host, want] of rows) void it(`${host} → ${String(want)}`, () => assert.equal(twinOf(host), want));
});

void describe('from-to-www-redirect over the cluster', () => {
  void it('both directions', () => {
    const result = buildModel(snapshot({ ingresses: [site('a', 'shop.test'), site('b', 'www.blog.test')], services: [web] }), options());
    assert.equal(twinOfServer(result, 'shop.test'), 'www.shop.test');
    assert.equal(twinOfServer(result, 'www.blog.test'), 'blog.test');
  });
  void it('not set: no twin', () => {
    assert.equal(twinOfServer(buildModel(snapshot({ ingresses: [site('a', 'shop.test', {})], services: [web] }), options()), 'shop.test'), undefined);
  });
  void it('a twin that is a host of its own: no redirect, a Warning', () => {
    const result = buildModel(snapshot({ ingresses: [site('a', 'shop.test'), site('b', 'www.shop.test', {})], services: [web] }), options());
    assert.equal(twinOfServer(result, 'shop.test'), undefined);
    const warnings = result.failures.filter((failure) => failure.reason === 'WwwRedirectSkipped');
    assert.deepEqual(warnings.map((failure) => [failure.ingress?.name, failure.warning]), [['a', true]]);
  });
  void it('TLS: the Ingress\'s certificate serves the twin when it names it, not otherwise', () => {
    const b64 = (text: string): string => Buffer.from(text).toString('base64');
    const secret = (name: string, names: string[]): ReturnType<typeof tlsSecret> => tlsSecret(name, createSelfSignedCertificate({ dnsNames: names }), b64);
    const both = ingress('both', { annotations: www, rules: [rule('both.test', path('/', svc('web', 80)))] });
    const one = ingress('one', { annotations: www, rules: [rule('one.test', path('/', svc('web', 80)))] });
    const withTls = (ing: V1Ingress, host: string, name: string): V1Ingress => ({ ...ing, spec: { ...ing.spec, tls: [{ hosts: [host], secretName: name }] } });
    const result = buildModel(snapshot({
      ingresses: [withTls(both, 'both.test', 'both-tls'), withTls(one, 'one.test', 'one-tls')], services: [web],
      secrets: [secret('both-tls', ['both.test', 'www.both.test']), secret('one-tls', ['one.test'])],
    }), options());
    const hosts = result.model.tls?.hosts.map((entry) => `${entry.host}=${entry.certificate}`) ?? [];
    assert.deepEqual(hosts, ['both.test=default/both-tls', 'one.test=default/one-tls', 'www.both.test=default/both-tls']);
  });
});

function tlsSecret(name: string, certificate: { cert: string; key: string }, b64: (text: string) => string): import('@kubernetes/client-node').V1Secret {
  return { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name, namespace: 'default' }, data: { 'tls.crt': b64(certificate.cert), 'tls.key': b64(certificate.key) } };
}
