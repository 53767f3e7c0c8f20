import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { V1Ingress, V1IngressLoadBalancerIngress, V1Service } from '@kubernetes/client-node';
import { pino } from 'pino';
import { ingress, snapshot } from '../model/testdata/fixtures.ts';
import type { Snapshot } from '../model/types.ts';
import { createStatusPublisher, WRITE_CONCURRENCY, type StatusPublisher } from './status-publisher.ts';

/** An Ingress with a status already showing `addresses`. */
function withStatus(name: string, addresses: string[], className = 'nginx'): V1Ingress {
  const base = ingress(name, { className });
  return { ...base, status: { loadBalancer: { ingress: addresses.map((a) => (/^[\d.]+$/.test(a) ? { ip: a } : { hostname: a })) } } };
}

function harness(cluster: Snapshot, source: Parameters<typeof createStatusPublisher>[0]['source'], service: V1Service | null = null): {
  publisher: StatusPublisher; written: Map<string, string[]>;
} {
  const written = new Map<string, string[]>();
  const publisher = createStatusPublisher({
    source,
    writer: { write: async (ns, name, list: readonly V1IngressLoadBalancerIngress[]) => { written.set(`${ns}/${name}`, list.map((e) => [e.ip, e.hostname].filter((part) => part !== undefined).join(' '))); } },
    readService: async () => service,
    snapshot: () => cluster,
    ours: (s) => s.ingresses.filter((i) => i.spec?.ingressClassName === 'nginx'),
    logger: pino({ level: 'silent' }),
  });
  return { publisher, written };
}

void describe('status publisher', () => {
  const addresses = { kind: 'addresses', addresses: ['10.1.1.1', 'lb.example.com'] } as const;
  const rows: { name: string; ingresses: V1Ingress[]; source: Parameters<typeof harness>[1]; service?: V1Service; written: Record<string, string[]> }[] = [
    { name: 'writes our Ingresses that lack the address', ingresses: [ingress('a'), ingress('b')], source: addresses, written: { 'default/a': ['10.1.1.1', 'lb.example.com'], 'default/b': ['10.1.1.1', 'lb.example.com'] } },
    { name: 'skips Ingresses already showing it, in any order', ingresses: [withStatus('a', ['lb.example.com', '10.1.1.1'])], source: addresses, written: {} },
    { name: 'leaves other classes alone', ingresses: [ingress('theirs', { className: 'other' })], source: addresses, written: {} },
    { name: 'replaces a stale address', ingresses: [withStatus('a', ['10.9.9.9'])], source: addresses, written: { 'default/a': ['10.1.1.1', 'lb.example.com'] } },
    {
      name: 'publishes the Service\'s load-balancer address',
      ingresses: [ingress('a')], source: { kind: 'service', namespace: 'ingress', name: 'resty' },
      service: { spec: { type: 'LoadBalancer', clusterIP: '10.0.0.9' }, status: { loadBalancer: { ingress: [{ ip: '203.0.113.5' }] } } },
      written: { 'default/a': ['203.0.113.5'] },
    },
    {
      name: 'a LoadBalancer still pending publishes nothing: an old address is cleared, not replaced by its clusterIP',
      ingresses: [withStatus('a', ['10.0.0.9']), withStatus('b', ['203.0.113.5']), ingress('c')], source: { kind: 'service', namespace: 'ingress', name: 'resty' },
      service: { spec: { type: 'LoadBalancer', clusterIP: '10.0.0.9' }, status: {} },
      written: { 'default/a': [], 'default/b': [] },
    },
    {
      name: 'a load-balancer entry with IP and hostname is written whole',
      ingresses: [ingress('a'), withStatus('b', ['203.0.113.5'])], source: { kind: 'service', namespace: 'ingress', name: 'resty' },
      service: { spec: { type: 'LoadBalancer', clusterIP: '10.0.0.9' }, status: { loadBalancer: { ingress: [{ ip: '203.0.113.5', hostname: 'lb.example.com' }] } } },
      written: { 'default/a': ['203.0.113.5 lb.example.com'], 'default/b': ['203.0.113.5 lb.example.com'] },
    },
    {
      name: 'a headless Service leaves status as it is',
      ingresses: [withStatus('a', ['10.9.9.9']), ingress('b')], source: { kind: 'service', namespace: 'ingress', name: 'resty' },
      service: { spec: { type: 'ClusterIP', clusterIP: 'None' } },
      written: {},
    },
    { name: 'a missing Service leaves status as it is', ingresses: [withStatus('a', ['10.9.9.9'])], source: { kind: 'service', namespace: 'ingress', name: 'gone' }, written: {} },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const { publisher, written } = harness(snapshot({ ingresses: row.ingresses }), row.source, row.service ?? null);
      await publisher.update();
      assert.deepEqual(Object.fromEntries(written), row.written);
    });
  }

  void it('clear on shutdown removes only our address', async () => {
    const { publisher, written } = harness(snapshot({ ingresses: [withStatus('a', ['10.1.1.1', 'lb.example.com', '198.51.100.1'])] }), addresses);
    await publisher.clear();
    assert.deepEqual(Object.fromEntries(written), { 'default/a': ['198.51.100.1'] });
  });

  void it('clear on shutdown also clears an Ingress whose write the snapshot has not seen yet', async () => {
    // The snapshot never sees the writes here, as when shutdown comes right after a status run.
    const { publisher, written } = harness(snapshot({ ingresses: [ingress('a'), withStatus('b', ['10.1.1.1', 'lb.example.com'])] }), addresses);
    await publisher.update();
    written.clear();
    await publisher.clear();
    assert.deepEqual(Object.fromEntries(written), { 'default/a': [], 'default/b': [] });
  });

  void it('after clear nothing is written any more: a late kick must not put the address back', async () => {
    const { publisher, written } = harness(snapshot({ ingresses: [withStatus('a', ['10.1.1.1', 'lb.example.com'])] }), addresses);
    await publisher.clear();
    written.clear();
    await publisher.update();
    assert.deepEqual(Object.fromEntries(written), {});
  });

  void it(`writes go ${WRITE_CONCURRENCY} at a time, every Ingress once`, async () => {
    const names = Array.from({ length: 3 * WRITE_CONCURRENCY + 5 }, (_, i) => `ing-${i}`);
    let inFlight = 0;
    let peak = 0;
    const seen: string[] = [];
    const publisher = createStatusPublisher({
      source: addresses,
      writer: {
        write: async (_ns, name) => {
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          await new Promise((resolve) => setTimeout(resolve, 2));
          inFlight -= 1;
          seen.push(name);
        },
      },
      readService: async () => null,
      snapshot: () => snapshot({ ingresses: names.map((name) => ingress(name)) }),
      ours: (s) => s.ingresses,
      logger: pino({ level: 'silent' }),
    });
    await publisher.update();
    assert.equal(peak, WRITE_CONCURRENCY);
    assert.deepEqual([...seen].sort(), [...names].sort());
  });

  void it('kicks during a run coalesce into one more run', async () => {
    const { publisher } = harness(snapshot({ ingresses: [ingress('a')] }), addresses);
    await Promise.all([publisher.update(), publisher.update(), publisher.update()]);
    // The snapshot never changes here, so every run writes `a` again: 1 run + 1 coalesced.
    assert.equal(publisher.writes(), 2);
  });
});
