// The header ConfigMap keys (ingress-nginx v1.15.1: config.go's defaults,
// template/configmap.go: hide-headers split on commas and trimmed; nginx.go reads
// proxy-set-headers / add-headers as `namespace/name` of a ConfigMap). No
// annotation sets any of them; a refused value keeps the default with a failure.
// What the named ConfigMaps hold is read in the build: header-configmaps.test.ts
// and the rows at the end (buildModel).

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { buildModel } from '../build.ts';
import type { BuildOptions, HeaderSettings, Snapshot } from '../types.ts';
import { headerSettingsFeature } from './header-settings.ts';
import { configMap, CONFIG_MAP_KEY, described, testDefaults, testValueRows, type ValueRow } from './testing.ts';

const values: ValueRow<HeaderSettings>[] = [
  { name: 'proxy-set-headers namespace/name', key: 'proxy-set-headers', value: 'ingress/custom-headers', want: { proxySetHeadersConfigMap: 'ingress/custom-headers' } },
  { name: 'proxy-set-headers trimmed', key: 'proxy-set-headers', value: ' ingress/custom-headers ', want: { proxySetHeadersConfigMap: 'ingress/custom-headers' } },
  { name: 'proxy-set-headers without a namespace', key: 'proxy-set-headers', value: 'custom-headers', want: 'fail' },
  { name: 'proxy-set-headers with a directive', key: 'proxy-set-headers', value: 'a/b; deny all', want: 'fail' },
  { name: 'proxy-set-headers with a third part', key: 'proxy-set-headers', value: 'a/b/c', want: 'fail' },
  { name: 'proxy-set-headers upper case name', key: 'proxy-set-headers', value: 'ingress/Custom', want: 'fail' },
  { name: 'add-headers namespace/name', key: 'add-headers', value: 'ingress/response-headers', want: { addHeadersConfigMap: 'ingress/response-headers' } },
  { name: 'add-headers with a newline', key: 'add-headers', value: 'ingress/a\nb', want: 'fail' },
  { name: 'hide-headers one', key: 'hide-headers', value: 'X-Powered-By', want: { hideHeaders: ['X-Powered-By'] } },
  { name: 'hide-headers a list with blanks and empty items', key: 'hide-headers', value: ' X-Powered-By, Server ,,X-AspNet-Version', want: { hideHeaders: ['X-Powered-By', 'Server', 'X-AspNet-Version'] } },
  { name: 'hide-headers the same name twice', key: 'hide-headers', value: 'A,A', want: { hideHeaders: ['A'] } },
  { name: 'hide-headers with a space inside a name', key: 'hide-headers', value: 'X Powered', want: 'fail' },
  { name: 'hide-headers with a $', key: 'hide-headers', value: 'X-$host', want: 'fail' },
  { name: 'hide-headers with ; and a directive', key: 'hide-headers', value: 'X-A; deny all', want: 'fail' },
  { name: 'hide-headers with a quote', key: 'hide-headers', value: 'X-"A', want: 'fail' },
  { name: 'hide-headers of 101 names', key: 'hide-headers', value: Array.from({ length: 101 }, (_, i) => `X-${i}`).join(','), want: 'fail' },
  { name: 'enable-underscores-in-headers true', key: 'enable-underscores-in-headers', value: 'true', want: { underscoresInHeaders: true } },
  { name: 'enable-underscores-in-headers on', key: 'enable-underscores-in-headers', value: 'on', want: 'fail' },
  { name: 'ignore-invalid-headers false', key: 'ignore-invalid-headers', value: 'false', want: { ignoreInvalidHeaders: false } },
  { name: 'ignore-invalid-headers off', key: 'ignore-invalid-headers', value: 'off', want: 'fail' },
  { name: 'server-tokens true', key: 'server-tokens', value: 'true', want: { serverTokens: true } },
  { name: 'server-tokens F', key: 'server-tokens', value: 'F', want: { serverTokens: false } },
  { name: 'server-tokens yes', key: 'server-tokens', value: 'yes', want: 'fail' },
];

void describe('header settings: values', () => testValueRows(headerSettingsFeature, values));

void describe('header settings: defaults', () => testDefaults(headerSettingsFeature, {
  proxySetHeadersConfigMap: null, addHeadersConfigMap: null, proxySetHeaders: [], addHeaders: [],
  hideHeaders: [], underscoresInHeaders: false, ignoreInvalidHeaders: true, serverTokens: false,
}));

/** A snapshot with the controller's ConfigMap holding `data` and the other ConfigMaps given. */
function snapshotWith(data: Record<string, string>, others: ReturnType<typeof configMap>[]): Snapshot {
  return {
    ingresses: [], ingressClasses: [], services: [], endpointSlices: [], secrets: [],
    configMaps: [configMap(data), ...others],
  } as unknown as Snapshot;
}

const buildOptions: BuildOptions = {
  configMap: CONFIG_MAP_KEY, annotationsPrefix: 'nginx.ingress.kubernetes.io', ingressClass: 'nginx', controllerClass: 'k8s.io/ingress-nginx',
  watchIngressWithoutClass: false, defaultBackendService: null, now: 0,
};

void describe('header settings: the named ConfigMaps in a build', () => {
  const rows: { name: string; data: Record<string, string>; others: ReturnType<typeof configMap>[]; proxySet: [string, string][]; add: [string, string][]; failures: string[] }[] = [
    {
      name: 'both ConfigMaps read, sorted by name',
      data: { 'proxy-set-headers': 'ingress/custom-headers', 'add-headers': 'ingress/response-headers' },
      others: [configMap({ 'X-Using-Nginx-Controller': 'true', 'X-Request-Start': 't=${msec}' }, 'custom-headers'), configMap({ 'X-Frame-Options': 'DENY' }, 'response-headers')],
      proxySet: [['X-Request-Start', 't=${msec}'], ['X-Using-Nginx-Controller', 'true']], add: [['X-Frame-Options', 'DENY']], failures: [],
    },
    {
      name: 'a missing ConfigMap: no headers, one failure, the other is read',
      data: { 'proxy-set-headers': 'ingress/nowhere', 'add-headers': 'ingress/response-headers' },
      others: [configMap({ 'X-Frame-Options': 'DENY' }, 'response-headers')],
      proxySet: [], add: [['X-Frame-Options', 'DENY']], failures: ['HeadersConfigMapNotFound proxy-set-headers'],
    },
    {
      name: 'a refused entry is left out with a warning, the rest is sent',
      data: { 'proxy-set-headers': 'ingress/custom-headers' },
      others: [configMap({ 'X-Ok': 'yes', 'X-Forwarded-Proto': 'https', 'X-Bad': 'a\u0000b' }, 'custom-headers')],
      proxySet: [['X-Ok', 'yes']], add: [],
      failures: ['InvalidHeader ConfigMap ingress/custom-headers (warning)', 'InvalidHeader ConfigMap ingress/custom-headers (warning)'],
    },
    {
      name: 'a controller header is allowed in add-headers (a response header)',
      data: { 'add-headers': 'ingress/response-headers' },
      others: [configMap({ 'X-Request-ID': 'fixed' }, 'response-headers')],
      proxySet: [], add: [['X-Request-ID', 'fixed']], failures: [],
    },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const built = buildModel(snapshotWith(row.data, row.others), buildOptions);
      const headers = built.model.settings.headerSettings;
      assert.deepEqual(headers.proxySetHeaders, row.proxySet);
      assert.deepEqual(headers.addHeaders, row.add);
      assert.deepEqual(described(built.failures.filter((failure) => failure.reason !== 'ConfigMapNotFound')), row.failures);
    });
  }
});
