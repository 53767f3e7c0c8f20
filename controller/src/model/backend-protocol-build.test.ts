// The backend-protocol family through buildModel: fastcgi-params-configmap is
// read from the snapshot's ConfigMaps on every build (a ConfigMap change is a
// new model; a missing one leaves the Ingress out with a warning), and
// proxy-ssl-secret from its Secrets into Model.backendTls (absent when no
// location uses one).

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { createSelfSignedCertificate } from '../tls/self-signed.ts';
import { buildModel, createModelBuilder } from './build.ts';
import { ann, ingress, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';
import { configOf, findLocation, hostnames } from './testdata/inspect.ts';

const web = service('web', [{ port: 80 }]);
const ca = createSelfSignedCertificate({ dnsNames: ['backend.test'] });
const fcgi = ingress('php', {
  annotations: { [ann('backend-protocol')]: 'FCGI', [ann('fastcgi-params-configmap')]: 'php-params' },
  rules: [rule('php.example', path('/', svc('web', 80)))],
});
const tls = ingress('secure', {
  annotations: { [ann('backend-protocol')]: 'HTTPS', [ann('proxy-ssl-secret')]: 'default/backend-ca' },
  rules: [rule('secure.example', path('/', svc('web', 80)))],
});
const params = (data: Record<string, string>): V1ConfigMap => ({ metadata: { namespace: 'default', name: 'php-params' }, data });
const caSecret: V1Secret = { metadata: { namespace: 'default', name: 'backend-ca' }, data: { 'ca.crt': Buffer.from(ca.cert).toString('base64') } };

void describe('backend protocols in the model', () => {
  void it('fastcgi-params-configmap: the ConfigMap\'s data on the location, sorted', () => {
    const result = buildModel(snapshot({ ingresses: [fcgi], services: [web], configMaps: [params({ SCRIPT_FILENAME: '/srv/index.php', APP: 'x' })] }), options());
    assert.deepEqual(result.failures, []);
    assert.deepEqual(configOf(result, findLocation(result, 'php.example', '/'), 'fastcgi')?.params, [['APP', 'x'], ['SCRIPT_FILENAME', '/srv/index.php']]);
  });

  void it('fastcgi-params-configmap missing: not served, a warning that says why', () => {
    const result = buildModel(snapshot({ ingresses: [fcgi], services: [web] }), options());
    assert.deepEqual(hostnames(result), ['_']);
    assert.deepEqual(result.failures.map((f) => `${f.reason} ${f.warning === true}`), ['FastcgiParamsNotFound true']);
  });

  void it('fastcgi-params-configmap with a bad value: not served', () => {
    const result = buildModel(snapshot({ ingresses: [fcgi], services: [web], configMaps: [params({ X: 'a;b' })] }), options());
    assert.deepEqual(hostnames(result), ['_']);
    assert.deepEqual(result.failures.map((f) => f.reason), ['InvalidFastcgiParams']);
  });

  void it('proxy-ssl-secret: the Secret in Model.backendTls; without a user, no backendTls at all', () => {
    const used = buildModel(snapshot({ ingresses: [tls], services: [web], secrets: [caSecret] }), options());
    assert.deepEqual(used.failures, []);
    assert.deepEqual(used.model.backendTls?.map((s) => [s.id, s.ca !== null, s.cert]), [['default/backend-ca', true, null]]);
    const unused = buildModel(snapshot({ ingresses: [fcgi], services: [web], secrets: [caSecret], configMaps: [params({})] }), options());
    assert.equal('backendTls' in unused.model, false);
  });

  void it('proxy-ssl-secret missing: served (its paths answer 503 when rendered), with a failure', () => {
    const result = buildModel(snapshot({ ingresses: [tls], services: [web] }), options());
    assert.deepEqual(hostnames(result), ['_', 'secure.example']);
    assert.deepEqual(result.failures.map((f) => f.reason), ['InvalidBackendTls']);
  });

  void it('a long-lived builder: a rotated Secret is a new backendTls, an unchanged one the same array', () => {
    const builder = createModelBuilder();
    const first = builder.build(snapshot({ ingresses: [tls], services: [web], secrets: [caSecret] }), options());
    const base = snapshot({ ingresses: [tls], services: [web], secrets: [caSecret] });
    const again = builder.build(base, options());
    const endpointsOnly = builder.build({ ...base, endpointSlices: [] }, options());
    assert.equal(endpointsOnly.model.backendTls, again.model.backendTls, 'the same Secrets: not resolved again');
    const rotated: V1Secret = { metadata: caSecret.metadata, data: { 'ca.crt': Buffer.from(createSelfSignedCertificate({ dnsNames: ['backend.test'] }).cert).toString('base64') } };
    const next = builder.build({ ...base, secrets: [rotated] }, options());
    assert.notEqual(next.model.backendTls?.[0]?.fingerprint, first.model.backendTls?.[0]?.fingerprint);
    assert.deepEqual(next.model, buildModel({ ...base, secrets: [rotated] }, options()).model, 'as a build from scratch');
  });
});
