// annotations-risk-level at admission, as ingress-nginx's webhook applies it:
// an Ingress carrying an annotation rated above the ConfigMap's level is denied
// (whatever its value), one at or below it is allowed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ann, configMap, deepFreeze, ingress, options, path, rule, service, snapshot, svc } from '../model/testdata/fixtures.ts';
import { reviewAdmission } from './admission-review.ts';

const MIRROR = { [ann('mirror-target')]: 'http://127.0.0.1:9000$request_uri' };

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

const rows: { name: string; level: string; annotations: Record<string, string>; allowed: boolean }[] = [
  { name: 'High (the default) allows mirror-target (High)', level: 'High', annotations: MIRROR, allowed: true },
  { name: 'Medium denies mirror-target (High)', level: 'Medium', annotations: MIRROR, allowed: false },
  { name: 'Low denies mirror-target (High)', level: 'Low', annotations: MIRROR, allowed: false },
  { name: 'Medium denies an empty mirror-target too (ingress-nginx rates names)', level: 'Medium', annotations: { [ann('mirror-target')]: '' }, allowed: false },
  { name: 'Critical allows mirror-target (High)', level: 'Critical', annotations: MIRROR, allowed: true },
  { name: 'Low allows mirror-request-body (Low)', level: 'Low', annotations: { [ann('mirror-request-body')]: 'off' }, allowed: true },
];

void describe('admission: annotations-risk-level', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const cluster = deepFreeze(snapshot({ services: [service('web', [{ port: 80 }])], configMaps: [configMap({ 'annotations-risk-level': row.level })] }));
      const reply = reviewAdmission(review(row.annotations), cluster, options({ configMap: 'ingress/resty-ingress' }));
      assert.equal(reply.status, 200, reply.status === 400 ? reply.error : '');
      if (reply.status !== 200) return;
      assert.equal(reply.body.response.allowed, row.allowed, reply.body.response.status?.message);
      if (!row.allowed) assert.match(reply.body.response.status?.message ?? '', /mirror-target is High risk, above the ConfigMap's annotations-risk-level (Medium|Low)/u);
    });
  }
});
