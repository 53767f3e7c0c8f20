import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { V1IngressLoadBalancerIngress, V1Service } from '@kubernetes/client-node';
import { currentAddresses, normalizeAddresses, normalizeEntries, sameAddresses, serviceAddresses, type ServicePublication } from './published-address.ts';

/** A Service of `type` with these parts (clusterIP 10.0.0.9 unless given). */
function service(type: string | undefined, parts: { clusterIP?: string; externalIPs?: string[]; externalName?: string; lb?: V1IngressLoadBalancerIngress[] } = {}): V1Service {
  return {
    spec: {
      ...(type !== undefined ? { type } : {}),
      clusterIP: parts.clusterIP ?? '10.0.0.9',
      ...(parts.externalIPs ? { externalIPs: parts.externalIPs } : {}),
      ...(parts.externalName ? { externalName: parts.externalName } : {}),
    },
    status: parts.lb ? { loadBalancer: { ingress: parts.lb } } : {},
  };
}

void describe('what a --publish-service Service publishes (ingress-nginx status.go)', () => {
  const rows: { name: string; service: V1Service; want: V1IngressLoadBalancerIngress[] | 'unusable' }[] = [
    { name: 'LoadBalancer pending publishes nothing, not its clusterIP', service: service('LoadBalancer'), want: [] },
    { name: 'LoadBalancer pending with externalIPs publishes those', service: service('LoadBalancer', { externalIPs: ['192.0.2.7'] }), want: [{ ip: '192.0.2.7' }] },
    {
      name: 'LoadBalancer entries first, then externalIPs not already among them',
      service: service('LoadBalancer', { lb: [{ ip: '203.0.113.5' }, { hostname: 'lb.example.com' }], externalIPs: ['203.0.113.5', '192.0.2.7'] }),
      want: [{ ip: '203.0.113.5' }, { hostname: 'lb.example.com' }, { ip: '192.0.2.7' }],
    },
    {
      name: 'a LoadBalancer entry with both IP and hostname keeps both, without its ports',
      service: service('LoadBalancer', { lb: [{ ip: '203.0.113.5', hostname: 'lb.example.com', ports: [{ port: 80, protocol: 'TCP' }] }] }),
      want: [{ ip: '203.0.113.5', hostname: 'lb.example.com' }],
    },
    { name: 'an empty LoadBalancer entry is skipped', service: service('LoadBalancer', { lb: [{}] }), want: [] },
    { name: 'ClusterIP publishes its clusterIP', service: service('ClusterIP'), want: [{ ip: '10.0.0.9' }] },
    { name: 'ClusterIP ignores externalIPs', service: service('ClusterIP', { externalIPs: ['192.0.2.7'] }), want: [{ ip: '10.0.0.9' }] },
    { name: 'no type is the API default, ClusterIP', service: service(undefined), want: [{ ip: '10.0.0.9' }] },
    { name: 'headless ClusterIP is unusable (ingress-nginx writes "None", which the API refuses)', service: service('ClusterIP', { clusterIP: 'None' }), want: 'unusable' },
    { name: 'NodePort without externalIPs publishes its clusterIP', service: service('NodePort'), want: [{ ip: '10.0.0.9' }] },
    { name: 'NodePort with externalIPs publishes only those', service: service('NodePort', { externalIPs: ['192.0.2.7', '192.0.2.8'] }), want: [{ ip: '192.0.2.7' }, { ip: '192.0.2.8' }] },
    { name: 'ExternalName publishes its name', service: service('ExternalName', { externalName: 'edge.example.com' }), want: [{ hostname: 'edge.example.com' }] },
    { name: 'ExternalName without a name is unusable', service: service('ExternalName'), want: 'unusable' },
    { name: 'an unknown type is unusable', service: service('Mystery'), want: 'unusable' },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const got: ServicePublication = serviceAddresses(row.service);
      if (row.want === 'unusable') assert.equal(got.kind, 'unusable');
      else assert.deepEqual(got, { kind: 'entries', entries: row.want });
    });
  }
});

void describe('status entries in normal form', () => {
  const rows: { name: string; entries: V1IngressLoadBalancerIngress[]; want: V1IngressLoadBalancerIngress[] }[] = [
    {
      name: 'IPs first (hostname "" sorts first), then by hostname, then by IP',
      entries: [{ hostname: 'b.example.com' }, { ip: '10.0.0.2' }, { ip: '10.0.0.1' }, { hostname: 'a.example.com', ip: '192.0.2.1' }],
      want: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: '192.0.2.1', hostname: 'a.example.com' }, { hostname: 'b.example.com' }],
    },
    { name: 'a hostname starting with a digit still sorts after every IP', entries: [{ hostname: '1.example.com' }, { ip: '9.9.9.9' }], want: [{ ip: '9.9.9.9' }, { hostname: '1.example.com' }] },
    { name: 'duplicates and empty entries go, ports are dropped', entries: [{ ip: '10.0.0.1' }, {}, { ip: '10.0.0.1', ports: [{ port: 80, protocol: 'TCP' }] }], want: [{ ip: '10.0.0.1' }] },
  ];
  for (const row of rows) void it(row.name, () => assert.deepEqual(normalizeEntries(row.entries), row.want));

  void it('--publish-status-address entries: IPs as ip, names as hostname', () => {
    assert.deepEqual(normalizeAddresses(['lb.example.com', '::1', '10.0.0.1']), [{ ip: '10.0.0.1' }, { ip: '::1' }, { hostname: 'lb.example.com' }]);
  });

  const same: { name: string; a: V1IngressLoadBalancerIngress[]; b: V1IngressLoadBalancerIngress[]; want: boolean }[] = [
    { name: 'same entries in another order', a: [{ ip: '10.0.0.1' }, { hostname: 'lb.example.com' }], b: [{ hostname: 'lb.example.com' }, { ip: '10.0.0.1' }], want: true },
    { name: 'an IP alone is not the IP with a hostname', a: [{ ip: '10.0.0.1' }], b: [{ ip: '10.0.0.1', hostname: 'lb.example.com' }], want: false },
    { name: 'nothing is not something', a: [], b: [{ ip: '10.0.0.1' }], want: false },
  ];
  for (const row of same) {
    void it(`compare: ${row.name}`, () => assert.equal(sameAddresses(currentAddresses({ loadBalancer: { ingress: row.a } }), normalizeEntries(row.b)), row.want));
  }
});
