// The chart's controller pod, for the default values and every ci/*.yaml:
// every rendered flag is accepted by the controller's own parseOptions (so
// the chart can never pass a flag the binary refuses), the ports, probes and
// NGINX prefix agree with those flags, and the pod runs locked down.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptions, type ControllerOptions } from '../controller/src/cli/options.ts';
import { chartCases, containersOf, parseManifests, renderChart, type Manifest } from './chart-render.ts';

interface Container {
  name: string;
  args: string[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: number } };
  readinessProbe: { httpGet: { path: string; port: number } };
  securityContext: { allowPrivilegeEscalation: boolean; readOnlyRootFilesystem: boolean; runAsNonRoot: boolean; capabilities: { drop: string[]; add?: string[] } };
  volumeMounts: { name: string; mountPath: string }[];
}
interface PodSpec {
  containers: Container[];
  securityContext: { runAsNonRoot: boolean; runAsUser: number; seccompProfile: { type: string } };
  volumes: { name: string; emptyDir?: object }[];
  terminationGracePeriodSeconds: number;
}

function controllerPod(manifests: readonly Manifest[]): { pod: PodSpec; container: Container; options: ControllerOptions } {
  const component = (m: Manifest): string | undefined => (m.metadata as { labels?: Record<string, string> }).labels?.['app.kubernetes.io/component'];
  const workloads = manifests.filter((m) => (m.kind === 'Deployment' || m.kind === 'DaemonSet') && component(m) === 'controller');
  assert.equal(workloads.length, 1, 'exactly one controller workload');
  const pod = (workloads[0] as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
  const container = pod.containers.find((c) => c.name === 'controller');
  assert.ok(container, 'a container named controller');
  return { pod, container, options: parseOptions(container.args) };
}

const portNamed = (c: Container, name: string): number | undefined => c.ports.find((p) => p.name === name)?.containerPort;

for (const chartCase of chartCases()) {
  void test(`controller flags are accepted by parseOptions and agree with the pod: ${chartCase.name}`, async () => {
    const manifests = parseManifests(await renderChart(chartCase));
    for (const c of containersOf(manifests, ['Deployment', 'DaemonSet']).filter((x) => x.name === 'controller')) {
      assert.doesNotThrow(() => parseOptions(c.args), `${c.owner} args: ${c.args.join(' ')}`);
    }
    const { pod, container, options } = controllerPod(manifests);
    assert.equal(portNamed(container, 'http'), options.httpPort);
    assert.equal(portNamed(container, 'https'), options.httpsPort);
    // The metrics port exists exactly when per-request metrics are on (controller.metrics.enabled).
    assert.equal(portNamed(container, 'metrics'), options.enableMetrics ? options.healthzPort : undefined);
    assert.deepEqual(container.livenessProbe.httpGet, { path: '/healthz', port: options.healthzPort, scheme: 'HTTP' });
    assert.deepEqual(container.readinessProbe.httpGet, { path: '/readyz', port: options.healthzPort, scheme: 'HTTP' });
    assert.ok(pod.terminationGracePeriodSeconds > options.shutdownGracePeriod + 30, 'the grace period outlasts --shutdown-grace-period plus NGINX\'s quit');
    const prefixMount = container.volumeMounts.find((m) => m.mountPath === options.nginxPrefix);
    assert.ok(prefixMount, `the NGINX prefix ${options.nginxPrefix} is a mounted volume`);
    assert.ok(pod.volumes.find((v) => v.name === prefixMount.name)?.emptyDir, 'the NGINX prefix is an emptyDir');
  });

  void test(`pod security: ${chartCase.name}`, async () => {
    const { pod, container } = controllerPod(parseManifests(await renderChart(chartCase)));
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.ok(pod.securityContext.runAsUser > 0);
    assert.equal(pod.securityContext.seccompProfile.type, 'RuntimeDefault');
    // NET_BIND_SERVICE exactly when a pod port is below 1024 (the process is never root).
    const privileged = container.ports.some((p) => p.containerPort < 1024);
    assert.deepEqual(container.securityContext, {
      allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true,
      capabilities: privileged ? { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } : { drop: ['ALL'] },
    });
    assert.ok(container.volumeMounts.some((m) => m.mountPath === '/tmp'), '/tmp is writable (emptyDir)');
  });
}

void test('values reach the controller as flags', async () => {
  const byName = new Map(chartCases().map((c) => [c.name, c]));
  const rows: { name: string; case: string; sets?: string[]; want: Partial<ControllerOptions> }[] = [
    { name: 'defaults', case: 'default', want: { ingressClass: 'resty', controllerClass: 'resty-ingress.dev/controller', httpPort: 8080, httpsPort: 8443, healthzPort: 10254, configMap: 'ingress/resty-resty-ingress-controller', publishService: 'ingress/resty-resty-ingress-controller', electionId: 'resty-resty-ingress-leader', watchNamespace: null } },
    { name: 'take over ingress-nginx class', case: 'take-over-nginx-values', want: { ingressClass: 'nginx', controllerClass: 'k8s.io/ingress-nginx', watchIngressWithoutClass: true, logLevel: 'debug', syncRateLimit: 5 } },
    { name: 'scope to one namespace', case: 'scope-namespace-values', want: { watchNamespace: 'apps', publishService: null } },
    { name: 'election id and class by name', case: 'default', sets: ['controller.electionID=edge-leader', 'controller.ingressClassByName=true'], want: { electionId: 'edge-leader', ingressClassByName: true } },
  ];
  for (const row of rows) {
    const chartCase = byName.get(row.case);
    assert.ok(chartCase, row.name);
    const { options } = controllerPod(parseManifests(await renderChart(chartCase, row.sets)));
    for (const [key, value] of Object.entries(row.want)) assert.deepEqual(options[key as keyof ControllerOptions], value, `${row.name}: ${key}`);
  }
});

void test('privileged ports: NET_BIND_SERVICE only when asked for', async () => {
  const [defaults] = chartCases();
  assert.ok(defaults);
  const { container } = controllerPod(parseManifests(await renderChart(defaults, [
    'controller.containerPort.http=80', 'controller.containerPort.https=443', 'controller.allowPrivilegedPorts=true',
  ])));
  assert.deepEqual(container.securityContext.capabilities, { drop: ['ALL'], add: ['NET_BIND_SERVICE'] });
});

void test('tcp:/udp: values: flags, container and Service ports agree; a privileged port adds NET_BIND_SERVICE', async () => {
  const [defaults] = chartCases();
  assert.ok(defaults);
  const sets = ['tcp.5432=db/postgres:5432', 'udp.5353=kube-system/dns:53'];
  const manifests = parseManifests(await renderChart(defaults, sets));
  const { container } = controllerPod(manifests);
  const options = parseOptions(container.args);
  assert.equal(options.tcpServicesConfigMap, 'ingress/resty-resty-ingress-tcp');
  assert.equal(options.udpServicesConfigMap, 'ingress/resty-resty-ingress-udp');
  const ports = (container.ports as ReadonlyArray<{ name: string; containerPort: number; protocol?: string }>).map((port) => `${port.name} ${port.containerPort} ${port.protocol ?? 'TCP'}`);
  assert.ok(ports.includes('5432-tcp 5432 TCP') && ports.includes('5353-udp 5353 UDP'), ports.join(', '));
  const configMaps = manifests.filter((m) => m.kind === 'ConfigMap').map((m) => `${m.metadata.name} ${JSON.stringify(m.data)}`);
  assert.ok(configMaps.includes('resty-resty-ingress-tcp {"5432":"db/postgres:5432"}'), configMaps.join('\n'));
  assert.ok(configMaps.includes('resty-resty-ingress-udp {"5353":"kube-system/dns:53"}'), configMaps.join('\n'));
  assert.deepEqual(controllerPod(parseManifests(await renderChart(defaults, sets))).container.securityContext.capabilities, { drop: ['ALL'] });
  const dns = controllerPod(parseManifests(await renderChart(defaults, ['udp.53=kube-system/dns:53']))).container;
  assert.deepEqual(dns.securityContext.capabilities, { drop: ['ALL'], add: ['NET_BIND_SERVICE'] }, 'UDP port 53 needs the capability');
  await assert.rejects(renderChart(defaults, ['tcp.9000=a/b:1', 'controller.tcp.configMapNamespace=other']), /only the release namespace/);
});

void test('an extraArgs flag the controller does not know is caught', async () => {
  const [defaults] = chartCases();
  assert.ok(defaults);
  const { containers } = { containers: containersOf(parseManifests(await renderChart(defaults, ['controller.extraArgs.no-such-flag=1'])), ['Deployment']) };
  assert.throws(() => parseOptions(containers[0]?.args ?? []), /no-such-flag/);
});
