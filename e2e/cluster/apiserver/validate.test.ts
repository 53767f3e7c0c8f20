import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateObject } from './validate.ts';
import { findResource } from './kinds.ts';
import type { JsonObject } from './patch.ts';

const template = (labels: Record<string, string>, containers: JsonObject[]): JsonObject => ({ metadata: { labels }, spec: { containers } });
const deployment = (spec: JsonObject): JsonObject => ({ metadata: { name: 'web' }, spec });
const ingressPath = (path: JsonObject): JsonObject => ({ metadata: { name: 'i' }, spec: { rules: [{ http: { paths: [path] } }] } });
const backend = { service: { name: 's', port: { number: 80 } } };

void test('validation reports field paths, and accepts valid objects', () => {
  const rows: { name: string; resource: string; obj: JsonObject; fields: string[] }[] = [
    { name: 'valid deployment', resource: 'deployments.apps', obj: deployment({ selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }, [{ name: 'c', image: 'x' }]) }), fields: [] },
    { name: 'selector does not match template', resource: 'deployments.apps', obj: deployment({ selector: { matchLabels: { app: 'a' } }, template: template({ app: 'b' }, [{ name: 'c', image: 'x' }]) }), fields: ['spec.template.metadata.labels'] },
    { name: 'container without image, negative replicas', resource: 'deployments.apps', obj: deployment({ replicas: -1, selector: {}, template: template({}, [{ name: 'c' }]) }), fields: ['spec.replicas', 'spec.template.spec.containers[0].image'] },
    { name: 'no containers', resource: 'pods', obj: { metadata: { name: 'p' }, spec: {} }, fields: ['spec.containers'] },
    { name: 'relative ingress path', resource: 'ingresses.networking.k8s.io', obj: ingressPath({ path: 'x', pathType: 'Prefix', backend }), fields: ['spec.rules[0].http.paths[0].path'] },
    { name: 'missing pathType and backend', resource: 'ingresses.networking.k8s.io', obj: ingressPath({ path: '/' }), fields: ['spec.rules[0].http.paths[0].pathType', 'spec.rules[0].http.paths[0].backend'] },
    { name: 'named backend port is fine', resource: 'ingresses.networking.k8s.io', obj: ingressPath({ path: '/', pathType: 'Exact', backend: { service: { name: 's', port: { name: 'http' } } } }), fields: [] },
    { name: 'service port 0 and bad type', resource: 'services', obj: { metadata: { name: 's' }, spec: { type: 'Magic', ports: [{ port: 0 }] } }, fields: ['spec.type', 'spec.ports[0].port'] },
    { name: 'service name must be a DNS label', resource: 'services', obj: { metadata: { name: 'a.b' } }, fields: ['metadata.name'] },
    { name: 'dotted configmap name is a subdomain', resource: 'configmaps', obj: { metadata: { name: 'a.b' } }, fields: [] },
    { name: 'bad configmap key', resource: 'configmaps', obj: { metadata: { name: 'c' }, data: { 'a b': 'x' } }, fields: ['data[a b]'] },
    { name: 'bad label value', resource: 'configmaps', obj: { metadata: { name: 'c', labels: { a: 'not valid!' } } }, fields: ['metadata.labels'] },
    { name: 'rbac names may hold colons', resource: 'clusterroles.rbac.authorization.k8s.io', obj: { metadata: { name: 'system:controller:x' } }, fields: [] },
    { name: 'missing name', resource: 'configmaps', obj: { metadata: {} }, fields: ['metadata.name'] },
  ];
  for (const row of rows) {
    const info = findResource(row.resource);
    assert.ok(info, row.resource);
    let fields: string[] = [];
    try {
      validateObject(info, row.obj);
    } catch (err) {
      const e = err as { code?: number; details?: { causes?: { field?: string }[] } };
      assert.equal(e.code, 422, row.name);
      fields = (e.details?.causes ?? []).map((c) => String(c.field));
    }
    assert.deepEqual(fields, row.fields, row.name);
  }
});
