import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { desiredEndpointSlices, MAX_ENDPOINTS_PER_SLICE, sliceFingerprint, type ServiceObject } from './endpoint-slices.ts';
import type { PodState, SimPod } from './pod-runtime.ts';

function pod(index: number, state: PodState, serving = state !== 'starting', labels: Record<string, string> = { app: 'web' }): SimPod {
  return {
    namespace: 'default', deployment: 'web', templateHash: 'h', labels, containerPorts: [{ name: 'http', containerPort: 8080 }],
    readyDelayMs: 0, graceMs: 0, name: `web-h-${String(index).padStart(3, '0')}`, uid: `uid-${index}`,
    ip: `127.0.${Math.floor(index / 250) + 1}.${(index % 250) + 1}`, port: 8080, sequence: index, createdAt: '', state, serving,
  };
}

const service: ServiceObject = { metadata: { name: 'web', namespace: 'default', uid: 's1' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } };

void describe('desiredEndpointSlices', () => {
  const rows = [
    { label: 'no pods: one empty slice with the stable name', pods: [], slices: 1, endpoints: [0] },
    { label: 'other labels are not selected', pods: [pod(0, 'ready', true, { app: 'other' })], slices: 1, endpoints: [0] },
    { label: `more than ${MAX_ENDPOINTS_PER_SLICE} pods split into slices`, pods: Array.from({ length: 150 }, (_, i) => pod(i, 'ready')), slices: 2, endpoints: [100, 50] },
  ];
  for (const row of rows) {
    void it(row.label, () => {
      const slices = desiredEndpointSlices(service, row.pods);
      assert.deepEqual([slices.length, slices.map((slice) => slice.endpoints?.length ?? 0)], [row.slices, row.endpoints]);
      assert.equal(slices[0].metadata.name, desiredEndpointSlices(service, [])[0].metadata.name, 'the first slice keeps its name');
    });
  }

  const conditionRows = [
    { label: 'starting', state: 'starting' as const, serving: false, want: { ready: false, serving: false, terminating: false } },
    { label: 'ready', state: 'ready' as const, serving: true, want: { ready: true, serving: true, terminating: false } },
    { label: 'terminating after ready', state: 'terminating' as const, serving: true, want: { ready: false, serving: true, terminating: true } },
  ];
  for (const row of conditionRows) {
    void it(`conditions of a ${row.label} pod`, () => {
      assert.deepEqual(desiredEndpointSlices(service, [pod(0, row.state, row.serving)])[0].endpoints?.[0].conditions, row.want);
    });
  }

  const ignored = [
    { label: 'no selector', spec: { ports: [{ port: 80 }] } },
    { label: 'ExternalName', spec: { selector: { app: 'web' }, type: 'ExternalName' } },
  ];
  for (const row of ignored) {
    void it(`manages no slices for a Service with ${row.label}`, () => {
      assert.deepEqual(desiredEndpointSlices({ metadata: { name: 'x' }, spec: row.spec }, [pod(0, 'ready')]), []);
    });
  }
});

void describe('sliceFingerprint', () => {
  void it('ignores what the API adds (metadata, defaulted protocol) and sees real changes', () => {
    const [slice] = desiredEndpointSlices(service, [pod(0, 'ready')]);
    const stored = { ...slice, metadata: { ...slice.metadata, resourceVersion: '7', uid: 'x' }, ports: [{ name: 'http', port: 8080 }] };
    assert.equal(sliceFingerprint(stored), sliceFingerprint(slice));
    const [terminating] = desiredEndpointSlices(service, [pod(0, 'terminating', true)]);
    assert.notEqual(sliceFingerprint(terminating), sliceFingerprint(slice));
  });
});
