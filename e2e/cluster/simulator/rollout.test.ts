import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planRollout, resolveIntOrPercent, RolloutSpecError, type LivePod, type RolloutSpec } from './rollout.ts';

/** "old:ready:3" → three ready pods of template "old", named old-0..old-2, numbered after `start`. */
function pods(...groups: string[]): LivePod[] {
  const out: LivePod[] = [];
  for (const group of groups) {
    const [hash, state, count] = group.split(':');
    for (let index = 0; index < Number(count); index++) {
      out.push({ name: `${hash}-${state}-${index}`, templateHash: hash, ready: state === 'ready', sequence: out.length });
    }
  }
  return out;
}

function spec(replicas: number, maxSurge?: number | string, maxUnavailable?: number | string, strategy: RolloutSpec['strategy'] = 'RollingUpdate'): RolloutSpec {
  return { replicas, strategy, maxSurge, maxUnavailable };
}

void describe('resolveIntOrPercent', () => {
  const rows = [
    { label: 'integer as is', value: 2, total: 10, up: true, want: 2 },
    { label: 'default 25% of 10 rounds up', value: undefined, total: 10, up: true, want: 3 },
    { label: 'default 25% of 10 rounds down', value: undefined, total: 10, up: false, want: 2 },
    { label: '25% of 3 rounds down to 0', value: '25%', total: 3, up: false, want: 0 },
    { label: '100% of 0', value: '100%', total: 0, up: true, want: 0 },
  ];
  for (const row of rows) {
    void it(row.label, () => assert.equal(resolveIntOrPercent(row.value, '25%', row.total, row.up), row.want));
  }
  for (const bad of ['25', 'x%', '-1%']) {
    void it(`rejects ${JSON.stringify(bad)}`, () => assert.throws(() => resolveIntOrPercent(bad, '25%', 4, true), RolloutSpecError));
  }
  void it('rejects a negative integer', () => assert.throws(() => resolveIntOrPercent(-1, '25%', 4, true), RolloutSpecError));
});

void describe('planRollout', () => {
  const rows = [
    { label: 'fresh deployment creates all replicas', spec: spec(3), pods: pods(), terminating: 0, want: { create: 3, terminate: [] } },
    { label: 'steady state does nothing', spec: spec(3), pods: pods('new:ready:3'), terminating: 0, want: { create: 0, terminate: [] } },
    { label: 'scale down stops not-ready pods first, then the newest', spec: spec(1), pods: pods('new:ready:2', 'new:starting:1'), terminating: 0,
      want: { create: 0, terminate: ['new-starting-0', 'new-ready-1'] } },
    { label: 'scale to zero stops everything', spec: spec(0), pods: pods('new:ready:2'), terminating: 0, want: { create: 0, terminate: ['new-ready-1', 'new-ready-0'] } },
    { label: 'surge 1 / unavailable 0: first step only adds one new pod', spec: spec(3, 1, 0), pods: pods('old:ready:3'), terminating: 0,
      want: { create: 1, terminate: [] } },
    { label: 'surge 1 / unavailable 0: waits while the new pod is not ready', spec: spec(3, 1, 0), pods: pods('old:ready:3', 'new:starting:1'), terminating: 0,
      want: { create: 0, terminate: [] } },
    { label: 'surge 1 / unavailable 0: a ready new pod lets the oldest old pod go', spec: spec(3, 1, 0), pods: pods('old:ready:3', 'new:ready:1'), terminating: 0,
      want: { create: 0, terminate: ['old-ready-0'] } },
    { label: 'surge 1 / unavailable 0: after one old pod left, adds the next new pod', spec: spec(3, 1, 0), pods: pods('old:ready:2', 'new:ready:1'), terminating: 1,
      want: { create: 1, terminate: [] } },
    { label: 'surge 0 / unavailable 1: stops one old pod first', spec: spec(3, 0, 1), pods: pods('old:ready:3'), terminating: 0,
      want: { create: 0, terminate: ['old-ready-0'] } },
    { label: 'surge 0 / unavailable 0 acts as unavailable 1', spec: spec(2, 0, 0), pods: pods('old:ready:2'), terminating: 0,
      want: { create: 0, terminate: ['old-ready-0'] } },
    { label: 'defaults 25%/25% of 4: surge 1, unavailable 1', spec: spec(4), pods: pods('old:ready:4'), terminating: 0,
      want: { create: 1, terminate: ['old-ready-0'] } },
    { label: 'unhealthy old pods go before healthy ones', spec: spec(3, 1, 0), pods: pods('old:ready:2', 'old:starting:1', 'new:ready:1'), terminating: 0,
      want: { create: 0, terminate: ['old-starting-0'] } },
    { label: 'Recreate stops all old pods first', spec: spec(2, undefined, undefined, 'Recreate'), pods: pods('old:ready:2'), terminating: 0,
      want: { create: 0, terminate: ['old-ready-0', 'old-ready-1'] } },
    { label: 'Recreate waits for old pods to finish terminating', spec: spec(2, undefined, undefined, 'Recreate'), pods: pods(), terminating: 2,
      want: { create: 0, terminate: [] } },
    { label: 'Recreate then starts the new pods', spec: spec(2, undefined, undefined, 'Recreate'), pods: pods(), terminating: 0,
      want: { create: 2, terminate: [] } },
  ];
  for (const row of rows) {
    void it(row.label, () => assert.deepEqual(planRollout(row.spec, 'new', row.pods, row.terminating), row.want));
  }

  void it('a rollout of 3 with surge 1 / unavailable 0 converges, never below 3 ready', () => {
    let live = pods('old:ready:3');
    let sequence = live.length;
    for (let step = 0; step < 20; step++) {
      const plan = planRollout(spec(3, 1, 0), 'new', live, 0);
      live = live.filter((pod) => !plan.terminate.includes(pod.name));
      assert.ok(live.filter((pod) => pod.ready).length >= 3, `step ${step}: fewer than 3 ready pods`);
      assert.ok(live.length + plan.create <= 4, `step ${step}: more than 4 pods`);
      for (let index = 0; index < plan.create; index++) live.push({ name: `new-${sequence}`, templateHash: 'new', ready: false, sequence: sequence++ });
      // Every pod started in this step becomes ready before the next one.
      live = live.map((pod) => ({ ...pod, ready: true }));
    }
    assert.deepEqual(live.map((pod) => pod.templateHash), ['new', 'new', 'new']);
  });
});
