// Every ConfigMap key the catalogue calls supported (or supported with a
// documented difference) is really read: some value the key accepts changes
// what the controller does with a small cluster — the rendered nginx.conf,
// the data pushed to Lua (the model without its settings), or which Ingresses
// are served (the build's failures). A key that is parsed into the settings
// but that nothing downstream reads would pass the feature's own tests and
// still do nothing: this test names it.
//
// Values come from the property tests' generators (model/testdata/field-values.ts,
// a fixed seed) plus a few written here; a key whose effect needs another key
// (gzip-level needs use-gzip) gets that key in its context. The two keys that
// accept only their default are listed with the reason, and checked to be so.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { buildModel } from '../model/build.ts';
import { buildCatalogue } from '../model/features/catalogue.ts';
import { configValuesOf } from '../model/testdata/field-values.ts';
import { ann, configMap, ingress, options, path, rule, service, slice, snapshot, svc } from '../model/testdata/fixtures.ts';
import type { BuildResult } from '../model/types.ts';
import { createConfigRenderer } from './render-config.ts';
import { goldenOptions } from './testdata/model-fixtures.ts';

/** Keys another key must enable before they do anything (matched by name prefix, the longest wins). */
const CONTEXT: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'gzip-': { 'use-gzip': 'true' },
  'proxy-real-ip-cidr': { 'use-forwarded-headers': 'true' },
  'compute-full-forwarded-for': { 'use-forwarded-headers': 'true' },
  'global-auth-': { 'global-auth-url': 'http://auth.example/verify' },
  'no-auth-locations': { 'global-auth-url': 'http://auth.example/verify' },
  'allow-snippet-annotations': { 'annotations-risk-level': 'Critical' },
  'annotations-risk-level': { 'allow-snippet-annotations': 'true' },
  'disable-proxy-intercept-errors': { 'custom-http-errors': '404' },
  'global-auth-cache-duration': { 'global-auth-url': 'http://auth.example/verify', 'global-auth-cache-key': '$remote_user' },
  'global-auth-signin-redirect-param': { 'global-auth-url': 'http://auth.example/verify', 'global-auth-signin': 'https://login.example/start' },
  'proxy-protocol-header-timeout': { 'use-proxy-protocol': 'true' },
  'proxy-redirect-from': { 'proxy-redirect-to': 'https://public.example/' },
  'proxy-redirect-to': { 'proxy-redirect-from': 'http://internal.example/' },
};

/** Keys that accept nothing but their default, and why (the catalogue says so too). */
const DEFAULT_ONLY: Readonly<Record<string, string>> = {
  'access-log-path': 'NGINX runs unprivileged inside its prefix: only the default path is accepted',
  'strict-validate-path-type': 'the safeguard cannot be turned off: only "true" is accepted',
};

/** A Secret with DH parameters, for ssl-dh-param (RFC 7919's public ffdhe2048 group). */
const DH_SECRET = { metadata: { namespace: 'ingress', name: 'dhparam' },
  data: { 'dhparam.pem': readFileSync(new URL('../model/testdata/ffdhe2048.pem', import.meta.url)).toString('base64') } };

/** Values the generators may not draw, each meaningful for some key. */
const EXTRA_VALUES = ['true', 'Critical', 'probeword', 'ingress/custom-headers', 'ingress/response-headers', '30s', 'msie6', '/', 'ingress/dhparam'];

/**
 * One rate-limited Ingress (Service with a ClusterIP, one endpoint), a TCP and a UDP service, the header
 * ConfigMaps, a Secret with DH parameters, and a probe Ingress that asks for what only the builder decides: a snippet, a
 * word of the blocklist, FastCGI parameters from another namespace.
 */
function build(data: Readonly<Record<string, string>>, passthrough: boolean): BuildResult {
  const web = service('web', [{ port: 80 }]);
  const dns = service('dns', [{ port: 53 }]);
  const maps: V1ConfigMap[] = [configMap({ ...data }), configMap({ 'X-Custom': 'on' }, 'custom-headers'), configMap({ 'X-Response': 'on' }, 'response-headers'),
    configMap({ 9000: 'default/web:80' }, 'tcp'), configMap({ 5353: 'default/dns:53' }, 'udp'), configMap({ SCRIPT_FILENAME: '/app/index.php' }, 'params', 'other')];
  return buildModel(snapshot({
    ingresses: [
      ingress('app', {
        rules: [rule('a.example', path('/', svc('web', 80)))],
        annotations: { [ann('limit-rps')]: '5', [ann('limit-connections')]: '5', ...passthrough ? { [ann('ssl-passthrough')]: 'true' } : {} },
      }),
      ingress('probe', {
        rules: [rule('probe.example', path('/', svc('web', 80)))],
        annotations: { [ann('configuration-snippet')]: 'add_header X-Probe "probeword";' },
      }),
      ingress('php', {
        rules: [rule('php.example', path('/', svc('web', 80)))],
        annotations: { [ann('backend-protocol')]: 'FCGI', [ann('fastcgi-params-configmap')]: 'other/params' },
      }),
    ],
    services: [{ ...web, spec: { ...web.spec, clusterIP: '10.96.0.5' } }, { ...dns, spec: { ...dns.spec, ports: [{ port: 53, protocol: 'UDP' }] } }],
    endpointSlices: [slice('web-1', 'web', [{ port: 80 }], [{ addresses: ['10.0.0.1'] }]),
      { ...slice('dns-1', 'dns', [], [{ addresses: ['10.0.1.1'] }]), ports: [{ port: 53, protocol: 'UDP' }] }],
    configMaps: maps,
    secrets: [DH_SECRET],
  }), options({ configMap: 'ingress/resty-ingress', tcpServicesConfigMap: 'ingress/tcp', udpServicesConfigMap: 'ingress/udp', enableSslPassthrough: passthrough }));
}

/** What the controller does with a build, the settings left out (every key changes those by construction). */
function effect(result: BuildResult, render: (result: BuildResult) => string): string {
  return JSON.stringify([render(result), { ...result.model, settings: null }, result.failures.map((failure) => failure.message)]);
}

/** The supported ConfigMap keys of the catalogue. */
const SUPPORTED = buildCatalogue().configKeys.filter((entry) => entry.status === 'supported' || entry.status === 'different').map((entry) => entry.name);

void describe('every supported ConfigMap key reaches what the controller does', () => {
  const renderer = createConfigRenderer(goldenOptions());
  const passthroughRenderer = createConfigRenderer({ ...goldenOptions(), sslPassthrough: true });
  // The config version hashes the whole view, settings included: it is left out, or every key would count.
  const render = (result: BuildResult): string => {
    const { conf, version } = (result.model.sslPassthrough === undefined ? renderer : passthroughRenderer).render(result.model);
    return conf.replaceAll(version, '<version>');
  };

  it('the catalogue has supported keys to check', () => {
    assert.ok(SUPPORTED.length > 100, `${SUPPORTED.length} supported keys`);
  });

  for (const name of SUPPORTED) {
    void it(name, () => {
      // The longest matching prefix: global-auth-cache-duration's own context, not global-auth-'s.
      const context = Object.entries(CONTEXT).filter(([prefix]) => name.startsWith(prefix)).sort(([a], [b]) => b.length - a.length)[0]?.[1] ?? {};
      // proxy-protocol-header-timeout bounds the PROXY header read by the SSL-passthrough proxy only, as in ingress-nginx.
      const passthrough = name === 'proxy-protocol-header-timeout';
      const base = effect(build(context, passthrough), render);
      const values = [...fc.sample(configValuesOf(name), { numRuns: 300, seed: 27 }), ...EXTRA_VALUES];
      let accepted = 0;
      for (const value of values) {
        const result = build({ ...context, [name]: value }, passthrough);
        if (result.failures.some((failure) => failure.ingress === null && failure.field.endsWith(`data[${name}]`))) continue;
        accepted += 1;
        if (effect(result, render) !== base) {
          assert.equal(DEFAULT_ONLY[name], undefined, `${name}=${JSON.stringify(value)} changed the output, but the test lists it as accepting only its default`);
          return;
        }
      }
      assert.ok(DEFAULT_ONLY[name] !== undefined, `${name}: none of ${accepted} accepted values changed nginx.conf, the Lua data or the failures`);
    });
  }
});
