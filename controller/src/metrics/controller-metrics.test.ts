// Controller metrics fed the way the sync hooks feed them, read back from
// the registry's text exposition.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { BuildResult, Location, Model } from '../model/types.ts';
import { configHashValue, createControllerMetrics, type SyncOutcome } from './controller-metrics.ts';

function sample(text: string, line: string): number | null {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? null : Number(found.slice(line.length + 1));
}

function setup(): { registry: Registry; metrics: ReturnType<typeof createControllerMetrics>; clock: { t: number } } {
  const registry = new Registry();
  const clock = { t: 1_700_000_000_000 };
  return { registry, metrics: createControllerMetrics({ registry, electionId: 'leader-lease', ingressClass: 'resty', now: () => clock.t }), clock };
}

const location = (ingress: string, backend: string): Location => ({
  path: '/', match: 'prefix', route: { kind: 'backend', backend, key: `- ${backend} _ default ${ingress} ${backend} /` },
  ingress: { namespace: 'default', name: ingress }, policy: {},
});

void describe('controller metrics', () => {
  const syncRows: { name: string; outcomes: SyncOutcome[]; expected: Record<string, number> }[] = [
    { name: 'each outcome its label', outcomes: ['skip', 'dynamic', 'reload'], expected: { skip: 1, dynamic: 1, reload: 1, error: 0 } },
    { name: 'a queued reload counts as reload', outcomes: ['reload-queued', 'reload'], expected: { skip: 0, dynamic: 0, reload: 2, error: 0 } },
    { name: 'known-bad and thrown syncs count as error', outcomes: ['known-bad', 'error'], expected: { skip: 0, dynamic: 0, reload: 0, error: 2 } },
  ];
  for (const row of syncRows) {
    void it(`resty_ingress_sync_total: ${row.name}`, async () => {
      const { registry, metrics } = setup();
      for (const outcome of row.outcomes) metrics.syncFinished(outcome, 12);
      const text = await registry.metrics();
      for (const [result, count] of Object.entries(row.expected)) {
        assert.equal(sample(text, `resty_ingress_sync_total{result="${result}"}`), count, result);
      }
      assert.equal(sample(text, 'resty_ingress_sync_duration_seconds_count'), row.outcomes.length);
    });
  }

  void it('reloads: success sets hash, timestamp and the last-reload flag; a failure clears the flag', async () => {
    const { registry, metrics, clock } = setup();
    metrics.reloadSucceeded('abcdef0123456789');
    let text = await registry.metrics();
    assert.equal(sample(text, 'nginx_ingress_controller_config_hash'), configHashValue('abcdef0123456789'));
    assert.equal(sample(text, 'nginx_ingress_controller_config_last_reload_successful'), 1);
    assert.equal(sample(text, 'nginx_ingress_controller_config_last_reload_successful_timestamp_seconds'), clock.t / 1000);
    metrics.reloadFailed();
    text = await registry.metrics();
    assert.equal(sample(text, 'nginx_ingress_controller_config_last_reload_successful'), 0);
    assert.equal(sample(text, 'nginx_ingress_controller_errors'), 1);
    assert.equal(sample(text, 'nginx_ingress_controller_success'), 1);
  });

  const propagationRows = [
    { name: 'endpoint change pushed', kinds: ['EndpointSlice'], outcome: 'dynamic' as const, observed: 1 },
    { name: 'change without effect', kinds: ['EndpointSlice'], outcome: 'skip' as const, observed: 0 },
    { name: 'not an EndpointSlice', kinds: ['Ingress'], outcome: 'reload' as const, observed: 0 },
  ];
  for (const row of propagationRows) {
    void it(`endpoint propagation: ${row.name}`, async () => {
      const { registry, metrics, clock } = setup();
      for (const kind of row.kinds) metrics.objectChanged(kind);
      clock.t += 40;
      metrics.snapshotTaken();
      clock.t += 10;
      metrics.syncFinished(row.outcome, 10);
      const text = await registry.metrics();
      assert.equal(sample(text, 'resty_ingress_endpoint_propagation_seconds_count'), row.observed);
      if (row.observed) assert.equal(sample(text, 'resty_ingress_endpoint_propagation_seconds_sum'), 0.05);
    });
  }

  void it('orphan ingress: no-service from failures, no-endpoint from empty backends', async () => {
    const { registry, metrics } = setup();
    const model: Model = {
      servers: [{ hostname: 'a.test', locations: [location('ghost', 'default-ghost-80'), location('idle', 'default-idle-80'), location('ok', 'default-ok-80')] }],
      backends: [
        { name: 'default-ghost-80', namespace: 'default', service: 'ghost', port: 80, endpoints: [], loadBalance: 'round_robin' },
        { name: 'default-idle-80', namespace: 'default', service: 'idle', port: 80, endpoints: [], loadBalance: 'round_robin' },
        { name: 'default-ok-80', namespace: 'default', service: 'ok', port: 80, endpoints: [{ address: '10.0.0.1', port: 80 }], loadBalance: 'round_robin' },
      ],
    } as unknown as Model;
    const result: BuildResult = { model, failures: [{ ingress: { namespace: 'default', name: 'ghost' }, reason: 'ServiceNotFound', field: 'spec', message: 'no Service ghost' }] };
    metrics.modelBuilt(result);
    const text = await registry.metrics();
    assert.equal(sample(text, 'nginx_ingress_controller_orphan_ingress{namespace="default",ingress="ghost",type="no-service"}'), 1);
    assert.equal(sample(text, 'nginx_ingress_controller_orphan_ingress{namespace="default",ingress="idle",type="no-endpoint"}'), 1);
    assert.ok(!text.includes('ingress="ok"'));
    assert.ok(!text.includes('ingress="ghost",type="no-endpoint"'), 'a missing Service is not also reported as no-endpoint');
  });

  void it('leader election', async () => {
    const { registry, metrics } = setup();
    metrics.setLeader(true);
    const text = await registry.metrics();
    assert.equal(sample(text, 'nginx_ingress_controller_leader_election_status{name="leader-lease"}'), 1);
  });
});
