// The chart's RBAC is least privilege: the controller's ServiceAccount gets
// exactly these permissions (list/watch what it reads, patch Ingress status,
// create/patch Events, its own Lease and published Service by name) and
// nothing else, in every mode. The certgen Jobs' account is checked too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RELEASE, chartCases, parseManifests, renderChart, type ChartCase } from './chart-render.ts';
import { grantsOf } from './chart-rbac-rules.ts';

const FULLNAME = 'resty-resty-ingress';
const CONTROLLER_SA = { namespace: RELEASE.namespace, name: FULLNAME };
const LEASE = `${FULLNAME}-leader`;
const SERVICE = `${FULLNAME}-controller`;

const lines = (where: string, resource: string, verbs: readonly string[], name?: string): string[] =>
  verbs.map((verb) => `${where} ${resource} ${verb}${name ? ` name=${name}` : ''}`);

/** What the controller reads in the namespaces it watches, plus its two writes. */
const watched = (where: string): string[] => [
  ...['core/configmaps', 'core/secrets', 'core/services', 'discovery.k8s.io/endpointslices', 'networking.k8s.io/ingresses']
    .flatMap((resource) => lines(where, resource, ['list', 'watch'])),
  ...lines(where, 'networking.k8s.io/ingresses/status', ['patch']),
  ...lines(where, 'core/events', ['create', 'patch']),
];
const leaderElection = (where: string): string[] => [
  ...lines(where, 'coordination.k8s.io/leases', ['create']),
  ...lines(where, 'coordination.k8s.io/leases', ['get', 'update'], LEASE),
];
const own = `ns:${RELEASE.namespace}`;
const allNamespaces: string[] = [
  ...watched('cluster'),
  ...lines('cluster', 'networking.k8s.io/ingressclasses', ['list', 'watch']),
  ...lines('cluster', 'core/namespaces', ['list', 'watch']),
  ...leaderElection(own),
  ...lines(own, 'core/services', ['get'], SERVICE),
];

const caseNamed = (name: string): ChartCase => {
  const found = chartCases().find((c) => c.name === name);
  if (!found) throw new Error(`no chart case ${name}`);
  return found;
};

const rows: { name: string; chartCase: ChartCase; sets?: string[]; want: string[] }[] = [
  { name: 'default: every namespace, cluster-wide reads', chartCase: caseNamed('default'), want: allNamespaces },
  { name: 'the webhook adds nothing to the controller', chartCase: caseNamed('webhook-certgen-values'), want: allNamespaces },
  {
    name: 'scope: namespaced Role in the watched namespace, only IngressClasses cluster-wide',
    chartCase: caseNamed('scope-namespace-values'),
    want: [...lines('cluster', 'networking.k8s.io/ingressclasses', ['list', 'watch']), ...watched('ns:apps'), ...leaderElection(own)],
  },
  {
    name: 'a published Service in another namespace is readable there, by name only',
    chartCase: caseNamed('default'),
    sets: ['controller.publishService.pathOverride=edge/lb'],
    want: [...allNamespaces.filter((l) => !l.includes('core/services get')), ...lines('ns:edge', 'core/services', ['get'], 'lb')],
  },
  { name: 'rbac.create=false grants nothing', chartCase: caseNamed('default'), sets: ['rbac.create=false'], want: [] },
];

for (const row of rows) {
  void test(`controller RBAC: ${row.name}`, async () => {
    const manifests = parseManifests(await renderChart(row.chartCase, row.sets));
    assert.deepEqual(grantsOf(manifests, CONTROLLER_SA), [...row.want].sort());
  });
}

void test('certgen Jobs: only the admission Secret and their own webhook', async () => {
  const manifests = parseManifests(await renderChart(caseNamed('webhook-certgen-values')));
  const admission = `${FULLNAME}-admission`;
  assert.deepEqual(grantsOf(manifests, { namespace: RELEASE.namespace, name: admission }), [
    ...lines('cluster', 'admissionregistration.k8s.io/validatingwebhookconfigurations', ['get', 'update'], admission),
    ...lines(own, 'core/secrets', ['get', 'create']),
  ].sort());
});
