// The compiled decoder gives exactly what client-node's ObjectSerializer
// gives (same classes, renamed fields, Dates), for every watched kind's list.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

// The package root does not re-export its serializer; the version is pinned exactly.
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';

import { KINDS } from './kinds.ts';
import { decoderFor } from './typed-decoder.ts';

const meta = (name: string): Record<string, unknown> => ({
  name, namespace: 'shop', uid: 'u', resourceVersion: '7', generation: 2, creationTimestamp: '2026-01-02T03:04:05Z',
  labels: { app: name }, annotations: { 'nginx.ingress.kubernetes.io/rewrite-target': '/' },
  managedFields: [{ manager: 'kubectl', operation: 'Apply', time: '2026-01-02T03:04:05Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }],
  ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 's', controller: true }],
});

/** Raw list JSON per kind, with the fields the decoder must get right: Dates, `continue`, maps, int-or-string, nulls, unknown fields. */
const items: Record<string, unknown[]> = {
  Ingress: [{
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: meta('web'),
    spec: { ingressClassName: 'nginx', tls: [{ hosts: ['a.example.com'], secretName: 'tls' }], defaultBackend: { resource: { apiGroup: null, kind: 'Bucket', name: 'b' } },
      rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { name: 'http' } } } }] } }] },
    status: { loadBalancer: { ingress: [{ ip: '127.0.0.1', ports: [{ port: 80, protocol: 'TCP', error: null }] }] } },
    unknownField: { kept: true },
  }, { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'bare' } }],
  IngressClass: [{ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: meta('nginx'), spec: { controller: 'k8s.io/ingress-nginx', parameters: { kind: 'X', name: 'y', scope: 'Cluster' } } }],
  Service: [{
    apiVersion: 'v1', kind: 'Service', metadata: meta('web'),
    spec: { type: 'ClusterIP', clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }, { port: 81, targetPort: 8081 }], selector: { app: 'web' } },
    status: { loadBalancer: {}, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'r', message: 'm' }] },
  }],
  EndpointSlice: [{
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: meta('web-x'), addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080, protocol: 'TCP', appProtocol: null }],
    endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'n', zone: 'z', hints: { forZones: [{ name: 'z' }] }, targetRef: { kind: 'Pod', name: 'p', uid: 'x' } }],
  }],
  Secret: [{ apiVersion: 'v1', kind: 'Secret', metadata: meta('tls'), type: 'kubernetes.io/tls', data: { 'tls.crt': 'Y2VydA==', 'tls.key': 'a2V5' }, immutable: false }],
  ConfigMap: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cfg'), data: { 'use-gzip': 'true' }, binaryData: { b: 'AA==' } }],
};

void describe('decoderFor', () => {
  for (const descriptor of KINDS) {
    void it(`${descriptor.typeName}List decodes as ObjectSerializer does`, () => {
      const list = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '42', continue: 'token', remainingItemCount: 3 }, items: items[descriptor.kind] };
      const ours = decoderFor(`${descriptor.typeName}List`)(structuredClone(list));
      const theirs = ObjectSerializer.deserialize(structuredClone(list), `${descriptor.typeName}List`) as unknown;
      assert.deepStrictEqual(ours, theirs);
      const decoded = ours as { metadata: { _continue?: string }; items: { metadata: { creationTimestamp?: unknown } }[] };
      assert.equal(decoded.metadata._continue, 'token', 'the renamed field');
      assert.ok(decoded.items[0]?.metadata.creationTimestamp instanceof Date, 'Dates');
    });
  }

  void it('leaves null and undefined as they are, and unknown types untouched', () => {
    assert.equal(decoderFor('V1Ingress')(null), null);
    assert.equal(decoderFor('V1Ingress')(undefined), undefined);
    const raw = { a: 1 };
    assert.equal(decoderFor('NoSuchType')(raw), raw);
  });
});
