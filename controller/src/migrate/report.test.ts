// The report from objects: one row per situation an ingress-nginx user meets,
// each saying what the controller's builder does with it (verdict, why, which
// paths, which failures) and the exit code.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deepFreeze } from '../kube/kinds.ts';
import { buildReport } from './report.ts';
import type { FlagReport, IngressReport, MigrateReport } from './report-types.ts';
import { configMap, ingress, nginxClass, requestOf, service } from './testdata/objects.ts';

interface Expected {
  readonly verdict: IngressReport['verdict'];
  /** Matches `why` (null when absent). */
  readonly why?: RegExp;
  /** paths[].served in order. */
  readonly paths?: readonly boolean[];
  /** `reason:severity` of each failure, in order. */
  readonly failures?: readonly string[];
  /** `name:status[:closed]` of each annotation (name without the prefix). */
  readonly annotations?: readonly string[];
  readonly canary?: boolean;
}

interface Row {
  readonly name: string;
  readonly objects: readonly object[];
  readonly flags?: readonly FlagReport[];
  readonly ingresses: Readonly<Record<string, Expected>>;
  readonly other?: readonly string[];
  readonly installServed?: boolean;
  readonly exitCode: 0 | 1;
}

const app = (name: string, extra: Parameters<typeof ingress>[0] | object = {}): object[] => [service(name), ingress({ name, ...extra })];

const rows: readonly Row[] = [
  {
    name: 'a plain app is served as is',
    objects: [nginxClass(), ...app('web')],
    ingresses: { 'default/web': { verdict: 'served', paths: [true], failures: [] } }, exitCode: 0,
  },
  {
    name: 'supported annotations only: served as is',
    objects: [nginxClass(), ...app('web', { annotations: { 'proxy-body-size': '8m', 'ssl-redirect': 'false' } })],
    ingresses: { 'default/web': { verdict: 'served', annotations: ['proxy-body-size:supported', 'ssl-redirect:supported'] } }, exitCode: 0,
  },
  {
    name: 'a missing Service is a warning (503 as in ingress-nginx): still served as is',
    objects: [nginxClass(), ingress({ name: 'web' })],
    ingresses: { 'default/web': { verdict: 'served', paths: [true], failures: ['ServiceNotFound:warning'] } }, exitCode: 0,
  },
  {
    name: 'an ExternalName Service: the path answers 503, not served',
    objects: [nginxClass(), service('web', 'default', 'ExternalName'), ingress({ name: 'web' })],
    ingresses: { 'default/web': { verdict: 'not-served', why: /ExternalName/, paths: [false], failures: ['UnsupportedServiceType:error'] } }, exitCode: 1,
  },
  {
    name: 'ModSecurity (a protection not supported) fails closed',
    objects: [nginxClass(), ...app('admin', { annotations: { 'enable-modsecurity': 'true' } })],
    ingresses: {
      'default/admin': {
        verdict: 'not-served', why: /enable-modsecurity asks for a protection/, paths: [false],
        failures: ['ProtectionNotSupported:error', 'ProtectedPathsDenied:warning'], annotations: ['enable-modsecurity:not-supported:closed'],
      },
    },
    exitCode: 1,
  },
  {
    name: 'whitelist-source-range (the old name of the allow-list) is supported: served',
    objects: [nginxClass(), ...app('internal', { annotations: { 'whitelist-source-range': '10.0.0.0/8' } })],
    ingresses: { 'default/internal': { verdict: 'served', paths: [true], failures: [], annotations: ['whitelist-source-range:supported'] } },
    exitCode: 0,
  },
  {
    name: 'limit-whitelist (the old name of limit-allowlist) is supported: served',
    objects: [nginxClass(), ...app('internal', { annotations: { 'limit-whitelist': '10.0.0.0/8', 'limit-rps': '10' } })],
    ingresses: { 'default/internal': { verdict: 'served', paths: [true], failures: [], annotations: ['limit-rps:supported', 'limit-whitelist:supported'] } },
    exitCode: 0,
  },
  {
    name: 'a protective annotation switched off asks for nothing: served without it',
    objects: [nginxClass(), ...app('internal', { annotations: { 'enable-modsecurity': 'false' } })],
    ingresses: { 'default/internal': { verdict: 'served-with-differences', paths: [true], failures: ['UnsupportedAnnotation:warning'], annotations: ['enable-modsecurity:not-supported'] } },
    exitCode: 0,
  },
  {
    name: 'a typo is served without it',
    objects: [nginxClass(), ...app('blog', { annotations: { 'proxy-body-szie': '50m' } })],
    ingresses: { 'default/blog': { verdict: 'served-with-differences', paths: [true], failures: ['UnknownAnnotation:warning'], annotations: ['proxy-body-szie:unknown'] } },
    exitCode: 0,
  },
  {
    name: 'ssl-prefer-server-ciphers: unsupported, not a protection, served without it',
    objects: [nginxClass(), ...app('api', { annotations: { 'ssl-prefer-server-ciphers': 'true' } })],
    ingresses: { 'default/api': { verdict: 'served-with-differences', failures: ['UnsupportedAnnotation:warning'], annotations: ['ssl-prefer-server-ciphers:not-supported'] } },
    exitCode: 0,
  },
  {
    name: 'enable-cors is supported: served',
    objects: [nginxClass(), ...app('api', { annotations: { 'enable-cors': 'true' } })],
    ingresses: { 'default/api': { verdict: 'served', failures: [], annotations: ['enable-cors:supported'] } },
    exitCode: 0,
  },
  {
    name: 'a harmless ignored annotation is a difference, reported without a failure',
    objects: [nginxClass(), ...app('web', { annotations: { 'enable-opentelemetry': 'true' } })],
    ingresses: { 'default/web': { verdict: 'served-with-differences', failures: [], annotations: ['enable-opentelemetry:ignored'] } }, exitCode: 0,
  },
  {
    name: 'a snippet is refused without the ConfigMap\'s consent (the key itself is supported)',
    objects: [nginxClass(), ...app('legacy', { annotations: { 'configuration-snippet': 'more_set_headers "X: y";' } })],
    ingresses: { 'default/legacy': { verdict: 'not-served', why: /snippets need ConfigMap allow-snippet-annotations/, failures: ['SnippetNotAllowed:error'], annotations: ['configuration-snippet:supported'] } },
    exitCode: 1,
  },
  {
    name: 'an invalid value that ingress-nginx refuses: not served',
    objects: [nginxClass(), ...app('web', { annotations: { 'load-balance': 'fastest' } })],
    ingresses: { 'default/web': { verdict: 'not-served', why: /load-balance/, failures: ['InvalidAnnotation:error'] } }, exitCode: 1,
  },
  {
    name: 'an invalid value that ingress-nginx ignores: served with its default, with a warning',
    objects: [nginxClass(), ...app('web', { annotations: { 'proxy-read-timeout': 'soon' } })],
    ingresses: { 'default/web': { verdict: 'served-with-differences', failures: ['IgnoredInvalidAnnotation:warning'] } }, exitCode: 0,
  },
  {
    name: 'rewrite-target with a regex path: served with its documented difference',
    objects: [nginxClass(), ...app('api', { paths: [{ path: '/api(/|$)(.*)', service: 'api', pathType: 'ImplementationSpecific' }], annotations: { 'use-regex': 'true', 'rewrite-target': '/$2' } })],
    ingresses: { 'default/api': { verdict: 'served-with-differences', paths: [true], failures: [], annotations: ['rewrite-target:different', 'use-regex:supported'] } },
    exitCode: 0,
  },
  {
    name: 'a canary pair: both served, the canary attached to the main path',
    objects: [
      nginxClass(), ...app('shop'), service('shop-v2'),
      ingress({ name: 'shop-canary', host: 'shop.example.com', paths: [{ path: '/', service: 'shop-v2' }], annotations: { 'canary': 'true', 'canary-weight': '20' } }),
    ],
    ingresses: {
      'default/shop': { verdict: 'served', paths: [true], canary: false },
      'default/shop-canary': { verdict: 'served-with-differences', paths: [true], canary: true, failures: [], annotations: ['canary:different', 'canary-weight:different'] },
    },
    exitCode: 0,
  },
  {
    name: 'a canary without its main Ingress is not served',
    objects: [nginxClass(), service('shop-v2'), ingress({ name: 'shop-canary', host: 'shop.example.com', paths: [{ path: '/', service: 'shop-v2' }], annotations: { canary: 'true' } })],
    ingresses: { 'default/shop-canary': { verdict: 'not-served', why: /no main Ingress/, paths: [false], canary: true, failures: ['CanaryWithoutMain:error'] } },
    exitCode: 1,
  },
  {
    name: 'a host+path conflict: the older Ingress keeps it, the younger is not served',
    objects: [
      nginxClass(), service('one'), service('two'),
      ingress({ name: 'two', host: 'x.example.com', paths: [{ path: '/', service: 'two' }], created: '2024-02-01T00:00:00Z' }),
      ingress({ name: 'one', host: 'x.example.com', paths: [{ path: '/', service: 'one' }], created: '2024-01-01T00:00:00Z' }),
    ],
    ingresses: {
      'default/one': { verdict: 'served', paths: [true] },
      'default/two': { verdict: 'not-served', why: /already served by .*default\/one/, paths: [false], failures: ['Conflict:error'] },
    },
    exitCode: 1,
  },
  {
    name: 'one path lost to an older Ingress: served with differences, and the exit code says a path is lost',
    objects: [
      nginxClass(), service('one'), service('two'),
      ingress({ name: 'one', host: 'x.example.com', paths: [{ path: '/a', service: 'one' }], created: '2024-01-01T00:00:00Z' }),
      ingress({ name: 'two', host: 'x.example.com', paths: [{ path: '/a', service: 'two' }, { path: '/b', service: 'two' }], created: '2024-02-01T00:00:00Z' }),
    ],
    ingresses: { 'default/one': { verdict: 'served' }, 'default/two': { verdict: 'served-with-differences', paths: [false, true], failures: ['Conflict:error'] } },
    exitCode: 1,
  },
  {
    name: 'an invalid path is not served, the others are',
    objects: [nginxClass(), ...app('web', { paths: [{ path: 'no-slash', service: 'web' }, { path: '/ok', service: 'web' }] })],
    ingresses: { 'default/web': { verdict: 'served-with-differences', paths: [false, true], failures: ['InvalidPath:error'] } }, exitCode: 1,
  },
  {
    name: 'spec.defaultBackend alone is served',
    objects: [nginxClass(), service('fallback'), ingress({ name: 'fallback', defaultBackend: 'fallback' })],
    ingresses: { 'default/fallback': { verdict: 'served', paths: [true] } }, exitCode: 0,
  },
  {
    name: 'TLS: Secrets are not read, so no certificate failure is reported',
    objects: [nginxClass(), ...app('web', { tlsSecret: 'web-tls' })],
    ingresses: { 'default/web': { verdict: 'served', failures: [] } }, exitCode: 0,
  },
  {
    name: 'other classes are left out; the legacy annotation selects as in ingress-nginx',
    objects: [
      nginxClass(), ...app('mine'), ...app('theirs', { className: 'traefik' }),
      ...app('legacy', { className: null, annotations: { 'kubernetes.io/ingress.class': 'nginx' } }), ...app('classless', { className: null }),
    ],
    ingresses: { 'default/legacy': { verdict: 'served' }, 'default/mine': { verdict: 'served' } },
    other: ['default/classless', 'default/theirs'], exitCode: 0,
  },
  {
    name: 'a fail-closed ConfigMap key serves nothing; each Ingress still shows what would be left',
    objects: [nginxClass(), ...app('web'), ...app('blog', { annotations: { 'proxy-body-szie': '1m' } }), configMap({ 'enable-modsecurity': 'true', 'proxy-body-size': '8m' })],
    ingresses: {
      'default/blog': { verdict: 'not-served', why: /enable-modsecurity/, paths: [false], failures: ['UnknownAnnotation:warning'] },
      'default/web': { verdict: 'not-served', why: /enable-modsecurity/, paths: [false], failures: [] },
    },
    installServed: false, exitCode: 1,
  },
  {
    name: 'a protective ConfigMap key at its default protects nothing: served',
    objects: [nginxClass(), ...app('web'), configMap({ 'whitelist-source-range': '', 'use-gzip': 'true' })],
    ingresses: { 'default/web': { verdict: 'served' } }, installServed: true, exitCode: 0,
  },
  {
    name: 'a flag the controller refuses: the install does not start',
    objects: [nginxClass(), ...app('web')],
    flags: [{ name: 'enable-ssl-chain-completion', value: '', status: 'not-supported', note: 'an ingress-nginx flag resty-ingress does not have' }],
    ingresses: { 'default/web': { verdict: 'not-served', why: /enable-ssl-chain-completion/, paths: [false] } }, installServed: false, exitCode: 1,
  },
  {
    name: 'a flag the controller accepts and ignores with a warning: served',
    objects: [nginxClass(), ...app('web')],
    flags: [{ name: 'profiling', value: 'true', status: 'ignored', note: 'ingress-nginx flag --profiling=true is accepted and ignored: there is no Go profiler to expose' }],
    ingresses: { 'default/web': { verdict: 'served' } }, installServed: true, exitCode: 0,
  },
];

function check(report: MigrateReport, row: Row): void {
  const byName = new Map(report.ingresses.map((item) => [`${item.namespace}/${item.name}`, item]));
  assert.deepEqual([...byName.keys()], Object.keys(row.ingresses).sort(), 'the Ingresses of the class, sorted');
  for (const [name, expected] of Object.entries(row.ingresses)) {
    const actual = byName.get(name);
    assert.ok(actual, name);
    assert.equal(actual.verdict, expected.verdict, `${name} verdict (why: ${actual.why})`);
    if (expected.why) assert.match(actual.why ?? '', expected.why, `${name} why`);
    else assert.equal(actual.why, null, `${name} why`);
    if (expected.paths) assert.deepEqual(actual.paths.map((path) => path.served), expected.paths, `${name} paths ${JSON.stringify(actual.paths)}`);
    if (expected.failures) assert.deepEqual(actual.failures.map((failure) => `${failure.reason}:${failure.severity}`), expected.failures, `${name} failures`);
    if (expected.canary !== undefined) assert.equal(actual.canary, expected.canary, `${name} canary`);
    if (expected.annotations) {
      const seen = actual.annotations.map((item) => `${item.name.replace('nginx.ingress.kubernetes.io/', '')}:${item.status}${item.failsClosed ? ':closed' : ''}`);
      assert.deepEqual(seen, expected.annotations, `${name} annotations`);
    }
    for (const path of actual.paths) assert.equal(path.why === null, path.served, `${name} ${path.field}: a why exactly when not served`);
  }
  assert.deepEqual(report.otherIngresses.map((item) => `${item.namespace}/${item.name}`), row.other ?? []);
  assert.equal(report.install.served, row.installServed ?? true, 'install served');
  assert.equal(report.exitCode, row.exitCode, 'exit code');
}

void describe('buildReport', () => {
  for (const row of rows) {
    void it(row.name, () => {
      // Frozen like informer objects: the report must not change its inputs.
      const request = deepFreeze(requestOf(row.objects, row.flags ? { flags: row.flags } : {}));
      check(buildReport(request), row);
    });
  }

  void it('counts verdicts, paths and names in the summary', () => {
    const report = buildReport(requestOf([
      nginxClass(), ...app('a'), ...app('b', { annotations: { 'ssl-prefer-server-ciphers': 'true', 'proxy-body-size': '1m' } }),
      ...app('c', { annotations: { 'enable-modsecurity': 'true' } }), ...app('d', { className: 'other' }),
      configMap({ 'proxy-body-size': '8m', 'nosuch-key': 'x' }),
    ]));
    assert.deepEqual(report.summary, {
      ingresses: 3, served: 1, servedWithDifferences: 1, notServed: 1, pathsNotServed: 1, otherClass: 1,
      annotations: { 'supported': 1, 'different': 0, 'ignored': 0, 'not-supported': 2, 'unknown': 0 },
      configKeys: { 'supported': 1, 'different': 0, 'ignored': 0, 'not-supported': 0, 'unknown': 1 },
    });
    assert.deepEqual(report.configMap?.failures.map((failure) => `${failure.reason}:${failure.severity}`), ['UnknownConfigMapKey:warning']);
  });

  void it('selects with the given classes, as the controller would with the same flags', () => {
    const objects = [nginxClass('internal', 'example.com/internal'), ...app('web', { className: 'internal' })];
    assert.equal(buildReport(requestOf(objects)).ingresses.length, 0, 'not ingress-nginx\'s class');
    assert.equal(buildReport(requestOf(objects, {}, { controllerClass: 'example.com/internal' })).ingresses.length, 1);
  });
});
