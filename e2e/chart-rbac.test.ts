// The chart's RBAC is least privilege: the controller's ServiceAccount gets
// exactly these permissions (list/watch what it reads, its own ConfigMap by
// name only, patch Ingress status, create/patch Events, its own Lease and
// published Service by name) and nothing else, in every mode. Nothing grants
// Namespaces, and no ConfigMap right is ever without a name. The admission
// webhook (on by default) adds only its own Secret and its own
// ValidatingWebhookConfiguration, both by name: the chart creates the Secret
// empty, so the controller never gets `create` on Secrets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RELEASE, chartCases, parseManifests, renderChart, type ChartCase } from './chart-render.ts';
import { grantsOf } from './chart-rbac-rules.ts';

const FULLNAME = 'resty-resty-ingress';
const CONTROLLER_SA = { namespace: RELEASE.namespace, name: FULLNAME };
const LEASE = `${FULLNAME}-leader`;
const SERVICE = `${FULLNAME}-controller`;
const CONFIGMAP = `${FULLNAME}-controller`;

const lines = (where: string, resource: string, verbs: readonly string[], name?: string): string[] =>
  verbs.map((verb) => `${where} ${resource} ${verb}${name ? ` name=${name}` : ''}`);

const events = (where: string): string[] => lines(where, 'core/events', ['create', 'patch']);
/** What the controller reads in the namespaces it watches, plus its two writes. */
const watched = (where: string): string[] => [
  ...['core/secrets', 'core/services', 'discovery.k8s.io/endpointslices', 'networking.k8s.io/ingresses']
    .flatMap((resource) => lines(where, resource, ['list', 'watch'])),
  ...lines(where, 'networking.k8s.io/ingresses/status', ['patch']),
  ...events(where),
];
const leaderElection = (where: string): string[] => [
  ...lines(where, 'coordination.k8s.io/leases', ['create']),
  ...lines(where, 'coordination.k8s.io/leases', ['get', 'update'], LEASE),
];
const own = `ns:${RELEASE.namespace}`;
/** The --configmap ConfigMap: a list/watch narrowed by metadata.name, granted for that name only. */
const ownConfigMap = lines(own, 'core/configmaps', ['list', 'watch'], CONFIGMAP);
/** The ConfigMaps a ci case's values make the chart create (TCP/UDP services, headers): granted by name as well. */
const STREAM_CONFIGMAPS: Readonly<Record<string, readonly string[]>> = {
  'tcp-udp-services-values': ['resty-resty-ingress-tcp', 'resty-resty-ingress-udp'],
  // and the header ConfigMaps the chart makes from controller.proxySetHeaders / addHeaders
  'ingress-nginx-production-values': ['resty-resty-ingress-custom-add-headers', 'resty-resty-ingress-custom-proxy-headers'],
};
const ingressClasses = lines('cluster', 'networking.k8s.io/ingressclasses', ['list', 'watch']);
const publishedService = lines(own, 'core/services', ['get'], SERVICE);
const ADMISSION = `${FULLNAME}-admission`;
/** The webhook's certificate, managed by the controller: its Secret and its ValidatingWebhookConfiguration only. */
const webhookCertificate = [
  ...lines(own, 'core/secrets', ['get', 'update'], ADMISSION),
  ...lines('cluster', 'admissionregistration.k8s.io/validatingwebhookconfigurations', ['get', 'update'], ADMISSION),
];
const withoutWebhook: string[] = [
  ...watched('cluster'),
  ...ingressClasses,
  ...leaderElection(own),
  ...ownConfigMap,
  ...publishedService,
];
const allNamespaces: string[] = [...withoutWebhook, ...webhookCertificate];

const caseNamed = (name: string): ChartCase => {
  const found = chartCases().find((c) => c.name === name);
  if (!found) throw new Error(`no chart case ${name}`);
  return found;
};

const rows: { name: string; chartCase: ChartCase; sets?: string[]; want: string[] }[] = [
  { name: 'default: every namespace, cluster-wide reads', chartCase: caseNamed('default'), want: allNamespaces },
  { name: 'the webhook off: no Secret or webhook grant', chartCase: caseNamed('webhook-disabled-values'), want: withoutWebhook },
  { name: 'cert-manager makes the certificate: the controller only reads it from files', chartCase: caseNamed('webhook-certmanager-values'), want: withoutWebhook },
  {
    name: 'scope: the watched namespace\'s reads and writes there; the own ConfigMap and its Events in the release namespace; only IngressClasses cluster-wide',
    chartCase: caseNamed('scope-namespace-values'),
    want: [...ingressClasses, ...watched('ns:apps'), ...leaderElection(own), ...ownConfigMap, ...events(own), ...webhookCertificate],
  },
  {
    name: 'scope with the published Service: read by name in the release namespace',
    chartCase: caseNamed('default'),
    sets: ['controller.scope.enabled=true', 'controller.scope.namespace=apps'],
    want: [...ingressClasses, ...watched('ns:apps'), ...leaderElection(own), ...ownConfigMap, ...events(own), ...publishedService, ...webhookCertificate],
  },
  {
    name: 'scope on the release namespace itself: everything namespaced there',
    chartCase: caseNamed('default'),
    sets: ['controller.scope.enabled=true'],
    want: [...ingressClasses, ...watched(own), ...leaderElection(own), ...ownConfigMap, ...publishedService, ...webhookCertificate],
  },
  {
    name: 'a published Service in another namespace is readable there, by name only',
    chartCase: caseNamed('default'),
    sets: ['controller.publishService.pathOverride=edge/lb'],
    want: [...allNamespaces.filter((l) => !l.includes('core/services get')), ...lines('ns:edge', 'core/services', ['get'], 'lb')],
  },
  {
    name: 'the ConfigMaps Ingresses name in fastcgi-params-configmap: list/watch by name in their namespaces, nothing more',
    chartCase: caseNamed('default'),
    sets: ['rbac.fastcgiParamsConfigMaps={apps/php-params,apps/more-params,shop/fcgi,apps/php-params}'],
    want: [
      ...allNamespaces,
      ...lines('ns:apps', 'core/configmaps', ['list', 'watch'], 'more-params'),
      ...lines('ns:apps', 'core/configmaps', ['list', 'watch'], 'php-params'),
      ...lines('ns:shop', 'core/configmaps', ['list', 'watch'], 'fcgi'),
    ],
  },
  {
    name: 'rbac.referencedConfigMaps (auth-proxy-set-headers too) beside the older fastcgiParamsConfigMaps: both granted by name',
    chartCase: caseNamed('default'),
    sets: ['rbac.referencedConfigMaps={apps/auth-headers,shop/fcgi}', 'rbac.fastcgiParamsConfigMaps={apps/php-params}'],
    want: [
      ...allNamespaces,
      ...lines('ns:apps', 'core/configmaps', ['list', 'watch'], 'auth-headers'),
      ...lines('ns:apps', 'core/configmaps', ['list', 'watch'], 'php-params'),
      ...lines('ns:shop', 'core/configmaps', ['list', 'watch'], 'fcgi'),
    ],
  },
  {
    name: 'tcp:/udp: values: their ConfigMaps by name in the release namespace, nothing more',
    chartCase: caseNamed('default'),
    sets: ['tcp.5432=db/postgres:5432', 'udp.5353=kube-system/dns:53'],
    want: [...allNamespaces, ...lines(own, 'core/configmaps', ['list', 'watch'], 'resty-resty-ingress-tcp'), ...lines(own, 'core/configmaps', ['list', 'watch'], 'resty-resty-ingress-udp')],
  },
  {
    name: 'controller.proxySetHeaders / addHeaders: the chart\'s header ConfigMaps by name in the release namespace',
    chartCase: caseNamed('default'),
    sets: ['controller.proxySetHeaders.X-Team=edge', 'controller.addHeaders.X-Frame-Options=DENY'],
    want: [...allNamespaces, ...lines(own, 'core/configmaps', ['list', 'watch'], 'resty-resty-ingress-custom-add-headers'), ...lines(own, 'core/configmaps', ['list', 'watch'], 'resty-resty-ingress-custom-proxy-headers')],
  },
  { name: 'rbac.create=false grants nothing', chartCase: caseNamed('default'), sets: ['rbac.create=false'], want: [] },
  { name: 'rbac.create=false with fastcgi ConfigMaps grants nothing either', chartCase: caseNamed('default'), sets: ['rbac.create=false', 'rbac.fastcgiParamsConfigMaps={apps/p}'], want: [] },
];

for (const row of rows) {
  void test(`controller RBAC: ${row.name}`, async () => {
    const manifests = parseManifests(await renderChart(row.chartCase, row.sets));
    assert.deepEqual(grantsOf(manifests, CONTROLLER_SA), [...row.want].sort());
  });
}

for (const chartCase of chartCases()) {
  void test(`controller RBAC, ${chartCase.name}: no Namespaces, and ConfigMaps only by name`, async () => {
    const grants = grantsOf(parseManifests(await renderChart(chartCase)), CONTROLLER_SA);
    assert.deepEqual(grants.filter((line) => line.includes(' core/namespaces ')), []);
    const configMaps = grants.filter((line) => line.includes(' core/configmaps '));
    const services = (STREAM_CONFIGMAPS[chartCase.name] ?? []).flatMap((name) => lines(own, 'core/configmaps', ['list', 'watch'], name));
    assert.deepEqual([...configMaps].sort(), [...ownConfigMap, ...services].sort(), 'list/watch of the controller\'s own ConfigMaps only');
  });
}

void test('no chart case has Jobs or hooks: nothing runs the retired certgen image', async () => {
  for (const chartCase of chartCases()) {
    const manifests = parseManifests(await renderChart(chartCase));
    assert.deepEqual(manifests.filter((m) => m.kind === 'Job' || m.metadata.annotations?.['helm.sh/hook']).map((m) => `${m.kind} ${m.metadata.name}`), [], chartCase.name);
    assert.doesNotMatch(JSON.stringify(manifests), /kube-webhook-certgen/, chartCase.name);
  }
});
