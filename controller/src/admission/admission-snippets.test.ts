// The snippet gate and annotation-value-word-blocklist at admission, as
// ingress-nginx's webhook applies them: the builder the webhook runs refuses
// the candidate, so the denial says what the controller would log (the
// missing setting, the broken snippet rule, the blocked word).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ann, configMap, deepFreeze, ingress, options, path, rule, service, snapshot, svc } from '../model/testdata/fixtures.ts';
import { reviewAdmission } from './admission-review.ts';

function review(annotations: Record<string, string>): Record<string, unknown> {
  const object = JSON.parse(JSON.stringify(ingress('new', { className: 'nginx', annotations, rules: [rule('b.example.com', path('/', svc('web', 80)))] }))) as unknown;
  return {
    apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
    request: {
      uid: 'req-1', kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
      resource: { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' },
      namespace: 'default', name: 'new', operation: 'CREATE', object,
    },
  };
}

const ALLOW = { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' };
const rows: { name: string; data: Record<string, string>; annotations: Record<string, string>; denied: RegExp | null }[] = [
  { name: 'a blocked word denies', data: { 'annotation-value-word-blocklist': 'load_module,serviceaccount' }, annotations: { [ann('rewrite-target')]: '/serviceaccount' },
    denied: /rewrite-target annotation contains invalid word "serviceaccount"/u },
  { name: 'no blocked word: allowed', data: { 'annotation-value-word-blocklist': 'load_module' }, annotations: { [ann('rewrite-target')]: '/x' }, denied: null },
  { name: 'a snippet by default: denied, the settings named', data: {}, annotations: { [ann('configuration-snippet')]: 'add_header X 1;' },
    denied: /configuration-snippet: snippets need ConfigMap allow-snippet-annotations "true" \(is "false"\) and annotations-risk-level Critical \(is High\)/u },
  { name: 'a snippet allowed at Critical', data: ALLOW, annotations: { [ann('configuration-snippet')]: 'add_header X 1;' }, denied: null },
  { name: 'an allowed snippet breaking a rule: denied, the rule named', data: ALLOW, annotations: { [ann('server-snippet')]: 'ssl_certificate_key /etc/kubernetes/pki/ca.key;' },
    denied: /server-snippet: snippet refused: paths under \/etc or \/var\/run\/secrets are not allowed/u },
];

void describe('admission: snippets and annotation-value-word-blocklist', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const cluster = deepFreeze(snapshot({ services: [service('web', [{ port: 80 }])], configMaps: [configMap(row.data)] }));
      const reply = reviewAdmission(review(row.annotations), cluster, options({ configMap: 'ingress/resty-ingress' }));
      assert.equal(reply.status, 200, reply.status === 400 ? reply.error : '');
      if (reply.status !== 200) return;
      assert.equal(reply.body.response.allowed, row.denied === null, reply.body.response.status?.message);
      if (row.denied !== null) assert.match(reply.body.response.status?.message ?? '', row.denied);
    });
  }
});
