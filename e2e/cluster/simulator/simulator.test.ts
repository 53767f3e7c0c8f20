// The simulator against the local API server: pods as real echo servers,
// EndpointSlices, Deployment status, rolling updates under traffic, faults.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EchoReply } from '../echo/echo-server.ts';
import { GRACE_ANNOTATION } from './deployments.ts';
import type { EndpointSliceObject } from './endpoint-slices.ts';
import { deploymentManifest, serviceManifest, startTestCluster, waitFor, type TestCluster } from './test-cluster.ts';

const NS = '/apis/apps/v1/namespaces/default/deployments';
const SVC = '/api/v1/namespaces/default/services';

type Endpoint = NonNullable<EndpointSliceObject['endpoints']>[number];

async function endpoints(cluster: TestCluster, service: string): Promise<Endpoint[]> {
  return (await cluster.slices('default', service)).flatMap((slice) => slice.endpoints ?? []);
}

async function readyEndpoints(cluster: TestCluster, service: string, count: number): Promise<Endpoint[]> {
  return await waitFor(`${count} ready endpoints of ${service}`, async () => {
    const all = await endpoints(cluster, service);
    return all.length === count && all.every((endpoint) => endpoint.conditions.ready) ? all : undefined;
  });
}

async function podAt(address: string, port: number): Promise<string> {
  const reply = (await (await fetch(`http://${address}:${port}/`)).json()) as EchoReply;
  return reply.pod;
}

void describe('simulator', () => {
  void it('runs 3 replicas as echo servers on distinct addresses, scales to 0 and back to 2', async () => {
    const cluster = await startTestCluster('127.0.61.0/24');
    try {
      await cluster.call('POST', NS, deploymentManifest({ name: 'web', replicas: 3, annotations: { [GRACE_ANNOTATION]: '200' } }));
      await cluster.call('POST', SVC, serviceManifest('web', [{ name: 'http', port: 80, targetPort: 'http' }]));
      const three = await readyEndpoints(cluster, 'web', 3);
      const addresses = three.map((endpoint) => endpoint.addresses[0]);
      assert.equal(new Set(addresses).size, 3, 'each pod has its own address');
      const answered = await Promise.all(addresses.map((address) => podAt(address, 8080)));
      assert.deepEqual(answered.sort(), three.map((endpoint) => endpoint.targetRef.name).sort(), 'each address answers as its pod');
      const slices = await cluster.slices('default', 'web');
      assert.deepEqual(slices.map((slice) => [slice.addressType, slice.metadata.labels['endpointslice.kubernetes.io/managed-by'], slice.ports]),
        [['IPv4', 'endpointslice-controller.k8s.io', [{ name: 'http', port: 8080, protocol: 'TCP' }]]]);
      const status = await waitFor('status of 3 ready', async () => {
        const deployment = await cluster.call<{ status?: { readyReplicas?: number; observedGeneration?: number } }>('GET', `${NS}/web`);
        return deployment.status?.readyReplicas === 3 ? deployment.status : undefined;
      });
      assert.equal(status.observedGeneration, 1);
      const settled = (await cluster.slices('default', 'web'))[0].metadata.resourceVersion;
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal((await cluster.slices('default', 'web'))[0].metadata.resourceVersion, settled, 'no rewrite of an unchanged slice');

      await cluster.call('PATCH', `${NS}/web`, { spec: { replicas: 0 } });
      await waitFor('an empty slice', async () => ((await endpoints(cluster, 'web')).length === 0 ? true : undefined));
      assert.equal((await cluster.slices('default', 'web')).length, 1, 'the slice stays, empty');
      assert.deepEqual(cluster.sim.pods('default', 'web'), []);
      await assert.rejects(fetch(`http://${addresses[0]}:8080/`), 'a stopped pod no longer answers');

      await cluster.call('PATCH', `${NS}/web`, { spec: { replicas: 2 } });
      const two = await readyEndpoints(cluster, 'web', 2);
      assert.equal(two.length, 2);
    } finally {
      await cluster.stop();
    }
  });

  void it('rolls out with maxSurge 1 / maxUnavailable 0 without a failed request', async () => {
    const cluster = await startTestCluster('127.0.62.0/24');
    try {
      await cluster.call('POST', NS, deploymentManifest({ name: 'roll', replicas: 3, maxSurge: 1, maxUnavailable: 0, annotations: { [GRACE_ANNOTATION]: '500' } }));
      await cluster.call('POST', SVC, serviceManifest('roll', [{ port: 80, targetPort: 8080 }]));
      const before = new Set((await readyEndpoints(cluster, 'roll', 3)).map((endpoint) => endpoint.targetRef.name));

      await cluster.call('PATCH', `${NS}/roll`, { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': new Date().toISOString() } } } } });
      let requests = 0;
      const failures: string[] = [];
      const answeredBy: string[] = [];
      let sawTerminating = false;
      const deadline = Date.now() + 15_000;
      // A client that follows the slice as an ingress controller would: only ready endpoints, slightly stale.
      while (Date.now() < deadline) {
        const all = await endpoints(cluster, 'roll');
        sawTerminating ||= all.some((endpoint) => !endpoint.conditions.ready && endpoint.conditions.serving && endpoint.conditions.terminating);
        const ready = all.filter((endpoint) => endpoint.conditions.ready);
        for (const endpoint of ready) {
          requests++;
          try {
            answeredBy.push(await podAt(endpoint.addresses[0], 8080));
          } catch (err) {
            failures.push(`${endpoint.targetRef.name}: ${(err as Error).message}`);
          }
        }
        const done = all.length === 3 && ready.length === 3 && all.every((endpoint) => !before.has(endpoint.targetRef.name));
        if (done) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual(failures, [], `${failures.length} of ${requests} requests failed`);
      assert.ok(requests >= 10, `traffic flowed during the rollout (${requests} requests)`);
      assert.ok(sawTerminating, 'old pods showed as ready:false, serving:true, terminating:true');
      const last = answeredBy.slice(-3);
      assert.ok(last.length === 3 && last.every((pod) => !before.has(pod)), `the last answers come from new pods: ${last.join(', ')}`);
      assert.deepEqual(cluster.sim.pods('default', 'roll').map((pod) => before.has(pod.name)), [false, false, false]);
    } finally {
      await cluster.stop();
    }
  });

  const portRows = [
    { label: 'numeric targetPort', targetPort: 9090 as number | string, containerPorts: [{ name: 'web', containerPort: 9090 }], want: [{ name: 'p', port: 9090, protocol: 'TCP' }] },
    { label: 'named targetPort resolves to the container port', targetPort: 'web', containerPorts: [{ name: 'web', containerPort: 7070 }], want: [{ name: 'p', port: 7070, protocol: 'TCP' }] },
    { label: 'named targetPort among several', targetPort: 'admin', containerPorts: [{ name: 'web', containerPort: 7070 }, { name: 'admin', containerPort: 7071 }], want: [{ name: 'p', port: 7071, protocol: 'TCP' }] },
    { label: 'unknown name drops the port', targetPort: 'missing', containerPorts: [{ name: 'web', containerPort: 7070 }], want: [] },
  ];
  void it('resolves targetPorts like Kubernetes', async () => {
    const cluster = await startTestCluster('127.0.63.0/24');
    try {
      for (const [index, row] of portRows.entries()) {
        const name = `ports-${index}`;
        await cluster.call('POST', NS, deploymentManifest({ name, replicas: 1, ports: row.containerPorts }));
        await cluster.call('POST', SVC, serviceManifest(name, [{ name: 'p', port: 80, targetPort: row.targetPort }]));
      }
      for (const [index, row] of portRows.entries()) {
        const [slice] = await waitFor(`a ready slice for ${row.label}`, async () => {
          const slices = await cluster.slices('default', `ports-${index}`);
          return slices[0]?.endpoints?.[0]?.conditions.ready ? slices : undefined;
        });
        assert.deepEqual(slice.ports ?? [], row.want, row.label);
      }
    } finally {
      await cluster.stop();
    }
  });

  void it('a failing readiness probe takes a pod out of its endpoints; it keeps running, and comes back when the probe passes', async () => {
    const cluster = await startTestCluster('127.0.65.0/24');
    try {
      await cluster.call('POST', NS, deploymentManifest({ name: 'probe', replicas: 2 }));
      await cluster.call('POST', SVC, serviceManifest('probe', [{ name: 'http', port: 80, targetPort: 'http' }]));
      const [first] = await readyEndpoints(cluster, 'probe', 2);
      const name = first.targetRef.name;
      const rows: [ready: boolean, changed: boolean, state: string][] = [[false, true, 'unready'], [false, false, 'unready'], [true, true, 'ready'], [true, false, 'ready']];
      for (const [ready, changed, state] of rows) {
        assert.equal(cluster.sim.setReady('default', name, ready), changed, `setReady(${ready})`);
        assert.equal(cluster.sim.pods('default', 'probe').find((pod) => pod.name === name)?.state, state);
        const endpoint = await waitFor(`${name} ready=${ready} in the slice`, async () => {
          const found = (await endpoints(cluster, 'probe')).find((e) => e.targetRef.name === name);
          return found?.conditions.ready === ready ? found : undefined;
        });
        assert.deepEqual(endpoint.conditions, { ready, serving: ready, terminating: false });
        assert.equal(await podAt(first.addresses[0], 8080), name, 'the pod keeps running');
      }
      assert.equal(cluster.sim.setReady('default', 'no-such-pod', false), false);
      assert.equal(cluster.sim.pods('default', 'probe').length, 2, 'an unready pod is not replaced');
    } finally {
      await cluster.stop();
    }
  });

  void it('survives dropped watches and an API restart; deletions clean up', async () => {
    const cluster = await startTestCluster('127.0.64.0/24');
    try {
      await cluster.call('POST', NS, deploymentManifest({ name: 'tough', replicas: 1, annotations: { [GRACE_ANNOTATION]: '100' } }));
      await cluster.call('POST', SVC, serviceManifest('tough', [{ name: 'http', port: 80, targetPort: 'http' }]));
      await readyEndpoints(cluster, 'tough', 1);
      cluster.api.dropWatches();
      cluster.api.expireResourceVersions();
      await cluster.api.restart();
      await cluster.call('PATCH', `${NS}/tough`, { spec: { replicas: 2 } });
      await readyEndpoints(cluster, 'tough', 2);

      await cluster.call('DELETE', `${NS}/tough`);
      await waitFor('the pods of a deleted Deployment to stop', () => (cluster.sim.pods('default', 'tough').length === 0 ? true : undefined));
      await cluster.call('DELETE', `${SVC}/tough`);
      await waitFor('the slice of a deleted Service to go', async () => ((await cluster.slices('default', 'tough')).length === 0 ? true : undefined));
    } finally {
      await cluster.stop();
    }
  });
});
