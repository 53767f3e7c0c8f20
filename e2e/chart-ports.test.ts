// The controller pod's ports, probes and Services for every way a values file
// places NGINX (defaults, ingress-nginx's containerPort 80/443, hostPort,
// hostNetwork, NodePort, flags in extraArgs): the flags the controller parses,
// the container ports, the probes and the Services agree; a port below 1024
// comes with NET_BIND_SERVICE (never root); combinations Kubernetes or the
// controller would refuse fail the render. Also metrics.enabled, the default
// backend and the internal Service.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseOptions } from '../controller/src/cli/options.ts';
import { parseManifests, renderChart, type Manifest } from './chart-render.ts';

interface Port { name: string; containerPort: number; hostPort?: number }
interface Probe { [handler: string]: unknown; httpGet?: { path: string; port: number } }
interface Container { args: string[]; ports: Port[]; livenessProbe: Probe; readinessProbe: Probe; startupProbe?: Probe; securityContext: { capabilities: { add?: string[] } } }
interface ServiceSpec { ports: { name: string; targetPort: string | number; nodePort?: number }[]; type: string }

const DEFAULTS = { name: 'default', valuesFile: null } as const;
const HANDLERS = ['httpGet', 'tcpSocket', 'exec', 'grpc'];

const labelOf = (m: Manifest): string | undefined => (m.metadata as { labels?: Record<string, string> }).labels?.['app.kubernetes.io/component'];

async function render(sets: readonly string[]): Promise<{ manifests: Manifest[]; container: Container }> {
  const manifests = parseManifests(await renderChart(DEFAULTS, sets));
  const workload = manifests.find((m) => (m.kind === 'Deployment' || m.kind === 'DaemonSet') && labelOf(m) === 'controller');
  const container = (workload as unknown as { spec: { template: { spec: { containers: Container[] } } } } | undefined)?.spec.template.spec.containers[0];
  assert.ok(container, 'the controller container');
  return { manifests, container };
}

const port = (c: Container, name: string): Port | undefined => c.ports.find((p) => p.name === name);

interface Row { name: string; sets: string[]; http: number; https: number; healthz?: number; hostPorts?: [number, number]; privileged: boolean }
const rows: Row[] = [
  { name: 'defaults: unprivileged, the Service maps 80/443', sets: [], http: 8080, https: 8443, privileged: false },
  { name: 'ingress-nginx containerPort 80/443', sets: ['controller.containerPort.http=80', 'controller.containerPort.https=443'], http: 80, https: 443, privileged: true },
  { name: 'hostPort: node 80/443 to 8080/8443', sets: ['controller.hostPort.enabled=true'], http: 8080, https: 8443, hostPorts: [80, 443], privileged: false },
  { name: 'hostPort with other node ports', sets: ['controller.hostPort.enabled=true', 'controller.hostPort.ports.http=8000', 'controller.hostPort.ports.https=8001'], http: 8080, https: 8443, hostPorts: [8000, 8001], privileged: false },
  { name: 'hostNetwork: the node\'s 80/443', sets: ['controller.hostNetwork=true'], http: 80, https: 443, privileged: true },
  { name: 'hostNetwork and hostPort', sets: ['controller.hostNetwork=true', 'controller.hostPort.enabled=true'], http: 80, https: 443, hostPorts: [80, 443], privileged: true },
  { name: 'hostNetwork on unprivileged ports', sets: ['controller.hostNetwork=true', 'controller.containerPort.http=8080', 'controller.containerPort.https=8443'], http: 8080, https: 8443, privileged: false },
  { name: 'hostNetwork and hostPort on unprivileged ports', sets: ['controller.hostNetwork=true', 'controller.hostPort.enabled=true', 'controller.hostPort.ports.http=8080', 'controller.hostPort.ports.https=8443'], http: 8080, https: 8443, hostPorts: [8080, 8443], privileged: false },
  { name: 'NodePort Service', sets: ['controller.service.type=NodePort', 'controller.service.nodePorts.http=30080', 'controller.service.nodePorts.https=30443'], http: 8080, https: 8443, privileged: false },
  { name: 'ports from extraArgs win', sets: ['controller.extraArgs.http-port=9080', 'controller.extraArgs.https-port=9443', 'controller.extraArgs.healthz-port=10255', 'controller.metrics.enabled=true', 'controller.metrics.port=10255'], http: 9080, https: 9443, healthz: 10255, privileged: false },
  { name: 'allowPrivilegedPorts forces the capability', sets: ['controller.allowPrivilegedPorts=true'], http: 8080, https: 8443, privileged: true },
  { name: 'ingress-nginx probes keep one handler', sets: ['controller.livenessProbe.httpGet.path=/healthz', 'controller.livenessProbe.httpGet.port=10254', 'controller.readinessProbe.httpGet.path=/healthz', 'controller.readinessProbe.tcpSocket.port=80', 'controller.startupProbe.failureThreshold=30', 'controller.startupProbe.exec.command[0]=true'], http: 8080, https: 8443, privileged: false },
];

for (const row of rows) {
  void test(`ports agree: ${row.name}`, async () => {
    const { manifests, container } = await render(row.sets);
    const options = parseOptions(container.args);
    const healthz = row.healthz ?? 10254;
    assert.deepEqual([options.httpPort, options.httpsPort, options.healthzPort], [row.http, row.https, healthz], 'flags');
    assert.equal(port(container, 'http')?.containerPort, row.http);
    assert.equal(port(container, 'https')?.containerPort, row.https);
    assert.deepEqual([port(container, 'http')?.hostPort, port(container, 'https')?.hostPort], row.hostPorts ?? [undefined, undefined], 'host ports');
    const flagNames = container.args.map((a) => a.split('=')[0]);
    assert.deepEqual(flagNames.filter((f, i) => flagNames.indexOf(f) !== i), [], 'no flag twice');
    for (const [name, probe] of [['liveness', container.livenessProbe], ['readiness', container.readinessProbe], ['startup', container.startupProbe]] as const) {
      if (!probe) continue;
      assert.deepEqual(Object.keys(probe).filter((k) => HANDLERS.includes(k)), ['httpGet'], `${name}: one handler`);
      assert.equal(probe.httpGet?.port, healthz, `${name} probes the healthz port`);
      assert.equal(probe.httpGet?.path, name === 'readiness' ? '/readyz' : '/healthz', `${name} path`);
    }
    assert.deepEqual(container.securityContext.capabilities.add ?? [], row.privileged ? ['NET_BIND_SERVICE'] : [], 'capability');
    const service = manifests.find((m) => m.kind === 'Service' && m.metadata.name === 'resty-resty-ingress-controller') as unknown as { spec: ServiceSpec };
    for (const servicePort of service.spec.ports) {
      const target = container.ports.find((p) => p.name === servicePort.targetPort || p.containerPort === servicePort.targetPort);
      assert.ok(target, `Service port ${servicePort.name} targets a container port`);
    }
  });
}

void test('combinations that cannot work fail the render with what to do', async () => {
  const failures: { name: string; sets: string[]; want: RegExp }[] = [
    { name: 'hostNetwork host port ≠ container port', sets: ['controller.hostNetwork=true', 'controller.hostPort.enabled=true', 'controller.containerPort.http=8080'], want: /with hostNetwork NGINX's http port is the node's: controller.hostPort.ports.http \(80\) must equal the container port \(8080\)/ },
    { name: 'http on the healthz port', sets: ['controller.containerPort.http=10254'], want: /the controller's http and healthz ports are both 10254/ },
    { name: 'ingress-nginx webhook port on NGINX https', sets: ['controller.admissionWebhooks.enabled=true', 'controller.admissionWebhooks.port=8443'], want: /https and webhook ports are both 8443: give each its own port \(controller.admissionWebhooks.port: this chart's default is 8444/ },
    { name: 'metrics port not the healthz port', sets: ['controller.metrics.enabled=true', 'controller.metrics.port=9913'], want: /controller.metrics.port \(9913\) must equal the healthz port \(10254\)/ },
    { name: 'numeric targetPort elsewhere', sets: ['controller.service.targetPorts.https=443'], want: /targetPorts.https is 443 but NGINX listens on 8443/ },
    { name: 'tcp service on the healthz port', sets: ['tcp.10254=a/b:1'], want: /tcp port 10254 is the controller's healthz port/ },
    { name: 'default backend outside the watched namespace', sets: ['defaultBackend.enabled=true', 'controller.scope.enabled=true', 'controller.scope.namespace=apps'], want: /the default backend runs in the release namespace "ingress", which the controller does not watch/ },
    { name: 'ServiceMonitor without the metrics Service', sets: ['controller.metrics.enabled=true', 'controller.metrics.service.enabled=false', 'controller.metrics.serviceMonitor.enabled=true'], want: /serviceMonitor needs controller.metrics.service.enabled/ },
  ];
  for (const row of failures) await assert.rejects(renderChart(DEFAULTS, row.sets), row.want, row.name);
});

void test('metrics.enabled: per-request metrics, port, Service and ServiceMonitor, or none of them', async () => {
  const monitor = ['controller.metrics.serviceMonitor.enabled=true', 'controller.metrics.prometheusRule.enabled=true'];
  const off = await render(monitor);
  assert.equal(parseOptions(off.container.args).enableMetrics, false);
  assert.equal(port(off.container, 'metrics'), undefined);
  assert.deepEqual(off.manifests.filter((m) => ['ServiceMonitor', 'PrometheusRule'].includes(m.kind) || m.metadata.name.endsWith('-metrics')).map((m) => m.kind), []);

  const on = await render(['controller.metrics.enabled=true', ...monitor]);
  assert.equal(parseOptions(on.container.args).enableMetrics, true);
  assert.equal(port(on.container, 'metrics')?.containerPort, 10254);
  const service = on.manifests.find((m) => m.metadata.name === 'resty-resty-ingress-controller-metrics') as unknown as { spec: ServiceSpec } | undefined;
  assert.equal(service?.spec.ports[0]?.targetPort, 'metrics');
  const sm = on.manifests.find((m) => m.kind === 'ServiceMonitor') as unknown as { spec: { endpoints: { port: string; path: string }[] } } | undefined;
  assert.deepEqual(sm?.spec.endpoints.map((e) => [e.port, e.path]), [['metrics', '/metrics']]);
  assert.ok(on.manifests.some((m) => m.kind === 'PrometheusRule'));
});

void test('defaultBackend: its Deployment and Service, and the controller pointed at it', async () => {
  const { manifests, container } = await render(['defaultBackend.enabled=true']);
  assert.equal(parseOptions(container.args).defaultBackendService, 'ingress/resty-resty-ingress-defaultbackend');
  const service = manifests.find((m) => m.kind === 'Service' && m.metadata.name === 'resty-resty-ingress-defaultbackend') as unknown as { spec: ServiceSpec & { selector: Record<string, string> } };
  const backend = manifests.find((m) => m.kind === 'Deployment' && labelOf(m) === 'default-backend') as unknown as { spec: { template: { metadata: { labels: Record<string, string> }; spec: { containers: Container[] } } } };
  assert.ok(service && backend, 'Service and Deployment');
  for (const [key, value] of Object.entries(service.spec.selector)) assert.equal(backend.spec.template.metadata.labels[key], value, `selector ${key}`);
  assert.ok(backend.spec.template.spec.containers[0]?.ports.some((p) => p.name === service.spec.ports[0]?.targetPort), 'the Service targets the backend port');
  const off = await render([]);
  assert.equal(parseOptions(off.container.args).defaultBackendService, null);
});

/** The controller's traffic Services (the admission webhook's Service, on by default, carries the same component label). */
const trafficService = (m: Manifest): boolean => m.kind === 'Service' && labelOf(m) === 'controller' && !m.metadata.name.endsWith('-admission');

void test('service.internal: a second Service with its own annotations and type; external can be off', async () => {
  const both = (await render(['controller.service.internal.enabled=true', 'controller.service.internal.annotations.lb/scheme=internal', 'controller.service.internal.type=NodePort', 'controller.service.internal.nodePorts.http=31080'])).manifests
    .filter(trafficService);
  assert.deepEqual(both.map((m) => m.metadata.name), ['resty-resty-ingress-controller', 'resty-resty-ingress-controller-internal']);
  const internal = both[1] as unknown as { metadata: { annotations: Record<string, string> }; spec: ServiceSpec };
  assert.deepEqual(internal.metadata.annotations, { 'lb/scheme': 'internal' });
  assert.equal(internal.spec.type, 'NodePort');
  assert.equal(internal.spec.ports.find((p) => p.name === 'http')?.nodePort, 31080);
  const withoutAnnotations = (await render(['controller.service.internal.enabled=true'])).manifests.filter(trafficService);
  assert.equal(withoutAnnotations.length, 1, 'no internal Service without annotations (as ingress-nginx)');
  const internalOnly = (await render(['controller.service.external.enabled=false', 'controller.service.internal.enabled=true', 'controller.service.internal.annotations.a=b'])).manifests
    .filter(trafficService);
  assert.deepEqual(internalOnly.map((m) => m.metadata.name), ['resty-resty-ingress-controller-internal']);
});

/** Renders with a values file (for what --set cannot write: null, quoted numbers). */
async function renderValuesText(text: string): Promise<Manifest[]> {
  const dir = await mkdtemp(join(tmpdir(), 'chart-ports-'));
  try {
    const valuesFile = join(dir, 'values.yaml');
    await writeFile(valuesFile, text);
    return parseManifests(await renderChart({ name: 'values-file', valuesFile }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const controllerArgs = (manifests: readonly Manifest[]): string[] =>
  (manifests.find((m) => m.kind === 'Deployment') as unknown as { spec: { template: { spec: { containers: Container[] } } } }).spec.template.spec.containers[0]?.args ?? [];

void test('extraArgs without a value (null or "") render a bare flag, as ingress-nginx\'s chart', async () => {
  const args = controllerArgs(await renderValuesText('controller:\n  extraArgs:\n    update-status-on-shutdown:\n    disable-sync-events: ""\n'));
  assert.deepEqual(args.filter((a) => /update-status-on-shutdown|disable-sync-events/.test(a)), ['--disable-sync-events', '--update-status-on-shutdown']);
  assert.equal(parseOptions(args).disableSyncEvents, true);
});

void test('quoted numbers and "" as ingress-nginx values write them: ports, nodePorts, HPA targets', async () => {
  const manifests = await renderValuesText([
    'controller:',
    '  containerPort: {http: "9080"}',
    '  service: {type: NodePort, nodePorts: {http: "30080"}}',
    '  autoscaling: {enabled: true, targetCPUUtilizationPercentage: 60, targetMemoryUtilizationPercentage: ""}',
  ].join('\n'));
  assert.equal(parseOptions(controllerArgs(manifests)).httpPort, 9080);
  const service = manifests.find((m) => m.kind === 'Service' && m.metadata.name === 'resty-resty-ingress-controller') as unknown as { spec: ServiceSpec };
  assert.equal(service.spec.ports.find((p) => p.name === 'http')?.nodePort, 30080);
  const hpa = manifests.find((m) => m.kind === 'HorizontalPodAutoscaler') as unknown as { spec: { metrics: { resource: { name: string } }[] } };
  assert.deepEqual(hpa.spec.metrics.map((m) => m.resource.name), ['cpu'], 'memory target "" is off');
});
