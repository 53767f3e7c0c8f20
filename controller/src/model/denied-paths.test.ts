// An Ingress refused for its annotations, or left out because NGINX refused
// it, that asked for a protection keeps its paths, each answering 503
// (denied-paths.ts), so a request for them never falls through to another
// Ingress of the host that serves `/` without the protection; one that asked
// for none is not served at all, as before.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1Ingress } from '@kubernetes/client-node';
import { buildModel } from './build.ts';
import { ann, configMap, ingress, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';
import { findLocation } from './testdata/inspect.ts';
import type { BuildResult } from './types.ts';

const HOST = 'shop.test';
const web = service('web', [{ port: 80 }]);
const admin = service('admin', [{ port: 80 }]);

/** The open `/` of the host, older than the Ingress under test. */
const PUBLIC = ingress('public', { created: '2024-01-01T00:00:00Z', rules: [rule(HOST, path('/', svc('web', 80)))] });

function adminIngress(annotations: Record<string, string>, created = '2024-02-01T00:00:00Z', at = '/admin'): V1Ingress {
  return ingress('admin', { created, annotations: Object.fromEntries(Object.entries(annotations).map(([key, value]) => [ann(key), value])), rules: [rule(HOST, path(at, svc('admin', 80)))] });
}

function build(ingresses: V1Ingress[], data: Record<string, string> = {}, exclude?: ReadonlySet<V1Ingress>): BuildResult {
  return buildModel(snapshot({ ingresses, services: [web, admin], configMaps: [configMap(data)] }), options({ configMap: 'ingress/resty-ingress', ...(exclude ? { exclude } : {}) }));
}

/** What /admin of the host is: `denied` (503), `open` (the admin Ingress served), `absent`. */
function adminPath(result: BuildResult): 'denied' | 'open' | 'absent' {
  const location = findLocation(result, HOST, '/admin');
  if (location === undefined) return 'absent';
  return location.policy.accessControl?.denied === true ? 'denied' : 'open';
}

interface Row {
  readonly name: string;
  readonly annotations: Record<string, string>;
  readonly data?: Record<string, string>;
  readonly want: 'denied' | 'open' | 'absent';
}

const rows: Row[] = [
  { name: 'an auth-url its URL parser refuses (ingress-nginx: location denied, 503)', annotations: { 'auth-url': 'https://invalid..auth.url' }, want: 'denied' },
  { name: 'an auth-url with an NGINX variable', annotations: { 'auth-url': 'http://$host/auth' }, want: 'denied' },
  { name: 'an allow list with a word in it', annotations: { 'allowlist-source-range': '10.0.0.0/8, bad' }, want: 'denied' },
  { name: 'auth-type neither basic nor digest', annotations: { 'auth-type': 'basic ', 'auth-secret': 'users' }, want: 'denied' },
  { name: 'limit-rps out of range', annotations: { 'limit-rps': '1000001' }, want: 'denied' },
  { name: 'an unsupported protection (ModSecurity)', annotations: { 'enable-modsecurity': 'true' }, want: 'denied' },
  { name: 'basic auth beside a snippet the ConfigMap does not allow', annotations: { 'auth-type': 'basic', 'auth-secret': 'users', 'configuration-snippet': 'add_header X 1;' }, want: 'denied' },
  { name: 'a refused snippet alone: not served, nothing asked protection', annotations: { 'configuration-snippet': 'add_header X 1;' }, want: 'absent' },
  { name: 'a protection switched off beside a refused snippet', annotations: { 'enable-global-auth': 'false', 'configuration-snippet': 'add_header X 1;' }, want: 'absent' },
  { name: 'a canary with a refused allow list: its main Ingress keeps the path', annotations: { canary: 'true', 'allowlist-source-range': 'bad' }, want: 'absent' },
  { name: 'a valid allow list: served', annotations: { 'allowlist-source-range': '10.0.0.0/8' }, want: 'open' },
];

void describe('a refused Ingress that asked for a protection', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const result = build([PUBLIC, adminIngress(row.annotations)], row.data);
      assert.equal(adminPath(result), row.want);
      assert.equal(findLocation(result, HOST, '/')?.ingress?.name, 'public', 'the other Ingress is served as before');
      const own = result.failures.filter((failure) => failure.ingress?.name === 'admin' && failure.warning !== true);
      assert.equal(own.length > 0, row.want !== 'open', JSON.stringify(own));
      const said = result.failures.filter((failure) => failure.ingress?.name === 'admin' && failure.reason === 'ProtectedPathsDenied');
      assert.deepEqual(said.map((failure) => failure.warning), row.want === 'denied' ? [true] : [], 'one warning says why its paths answer 503');
    });
  }

  void it('the denied path sends nothing to the backend: its only policy is the 503', () => {
    const location = findLocation(build([PUBLIC, adminIngress({ 'auth-url': 'https://invalid..auth.url', 'enable-cors': 'true' })]), HOST, '/admin');
    assert.deepEqual(Object.keys(location?.policy ?? {}), ['accessControl']);
  });

  void it('oldest wins: a younger refused Ingress does not take an older one\'s path', () => {
    const older = ingress('older', { created: '2024-01-15T00:00:00Z', rules: [rule(HOST, path('/admin', svc('web', 80)))] });
    const result = build([PUBLIC, older, adminIngress({ 'auth-url': 'https://invalid..auth.url' })]);
    assert.equal(findLocation(result, HOST, '/admin')?.ingress?.name, 'older');
    assert.equal(adminPath(result), 'open');
  });

  void it('an older refused Ingress keeps its path denied: a younger one does not serve it open', () => {
    const younger = ingress('younger', { created: '2024-03-01T00:00:00Z', rules: [rule(HOST, path('/admin', svc('web', 80)))] });
    const result = build([PUBLIC, adminIngress({ 'auth-url': 'https://invalid..auth.url' }), younger]);
    assert.equal(adminPath(result), 'denied');
    assert.ok(result.failures.some((failure) => failure.ingress?.name === 'younger' && failure.reason === 'Conflict'));
  });

  void it('left out because NGINX refused it (an auth host that does not resolve): its paths answer 503, nothing else of it is placed', () => {
    const refused = adminIngress({ 'auth-url': 'http://auth.invalid/verify', 'enable-cors': 'true' });
    const result = build([PUBLIC, refused], {}, new Set([refused]));
    assert.equal(adminPath(result), 'denied');
    assert.deepEqual(Object.keys(findLocation(result, HOST, '/admin')?.policy ?? {}), ['accessControl']);
    assert.deepEqual(result.failures.filter((failure) => failure.ingress?.name === 'admin').map((failure) => failure.reason), ['ProtectedPathsDenied']);
  });

  void it('left out because NGINX refused it, without a protection: not served, as before', () => {
    const refused = adminIngress({ 'proxy-body-size': '8m' });
    const result = build([PUBLIC, refused], {}, new Set([refused]));
    assert.equal(adminPath(result), 'absent');
    assert.deepEqual(result.failures.filter((failure) => failure.ingress?.name === 'admin'), []);
  });

  void it('auth-tls-secret on a rule without a host (refused by the build): its paths answer 503, on the named host too', () => {
    const catchAll = ingress('catch-all', { rules: [rule('', path('/', svc('web', 80)))] });
    const secured = ingress('secured', {
      created: '2024-02-01T00:00:00Z', annotations: { [ann('auth-tls-secret')]: 'ca' },
      rules: [rule('', path('/secure', svc('admin', 80))), rule(HOST, path('/admin', svc('admin', 80)))],
    });
    const result = build([catchAll, PUBLIC, secured]);
    assert.equal(findLocation(result, '_', '/secure')?.policy.accessControl?.denied, true);
    assert.equal(adminPath(result), 'denied');
    assert.deepEqual(result.failures.filter((failure) => failure.ingress?.name === 'secured').map((failure) => failure.reason), ['ClientCertNeedsHost', 'ProtectedPathsDenied']);
  });

  void it('fastcgi-params-configmap missing (the Ingress is not served): with basic auth, its paths answer 503', () => {
    const result = build([PUBLIC, adminIngress({ 'backend-protocol': 'FCGI', 'fastcgi-params-configmap': 'no-such', 'auth-type': 'basic', 'auth-secret': 'users' })]);
    assert.equal(adminPath(result), 'denied');
    assert.deepEqual(result.failures.filter((failure) => failure.ingress?.name === 'admin').map((failure) => failure.reason), ['FastcgiParamsNotFound', 'ProtectedPathsDenied']);
    assert.equal(adminPath(build([PUBLIC, adminIngress({ 'backend-protocol': 'FCGI', 'fastcgi-params-configmap': 'no-such' })])), 'absent', 'without a protection: not served');
  });

  void it('a host of its own: served, every path 503 (not the default backend\'s 404)', () => {
    const alone = ingress('alone', { annotations: { [ann('auth-url')]: 'https://invalid..auth.url' }, rules: [rule('alone.test', path('/', svc('web', 80)))] });
    const location = findLocation(build([alone]), 'alone.test', '/');
    assert.equal(location?.policy.accessControl?.denied, true);
  });
});
