// Backend.affinity as the builder decides it from the Ingresses that route to
// one Service port (ingress-nginx v1.15.1: controller.go createUpstreams and
// mergeAlternativeBackend): the oldest Ingress with affinity: cookie decides,
// every such Ingress sets the cookie on its own locations, and a canary's
// backend takes its main backend's affinity unless the canary says legacy.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1Ingress } from '@kubernetes/client-node';
import { buildModel } from './build.ts';
import { ann, ingress, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';
import type { BackendAffinity, BuildResult } from './types.ts';

const COOKIE = { affinity: 'cookie' };

function annotated(annotations: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(annotations).map(([key, value]) => [ann(key), value]));
}

function app(name: string, created: string, annotations: Record<string, string>, at = '/', target = 'web', pathType = 'Prefix'): V1Ingress {
  return ingress(name, { created, annotations: annotated(annotations), rules: [rule('shop.test', path(at, svc(target, 80), pathType))] });
}

function build(ingresses: V1Ingress[]): BuildResult {
  return buildModel(snapshot({ ingresses, services: [service('web', [{ port: 80 }]), service('web-canary', [{ port: 80 }])] }), options());
}

function affinityOf(result: BuildResult, backend: string): BackendAffinity | null | undefined {
  return result.model.backends.find((b) => b.name === backend)?.affinity;
}

const DEFAULT: BackendAffinity = {
  mode: 'balanced', cookie: 'INGRESSCOOKIE', path: null, domain: null, expires: null, maxAge: null, secure: false,
  sameSite: null, conditionalSameSiteNone: false, changeOnFailure: false, ingresses: ['default/a'],
};

const rows: ReadonlyArray<{ name: string; ingresses: V1Ingress[]; backend: string; want: BackendAffinity | null }> = [
  { name: 'no affinity: null', ingresses: [app('a', '2024-01-01T00:00:00Z', {})], backend: 'default-web-80', want: null },
  { name: 'affinity: cookie with the defaults', ingresses: [app('a', '2024-01-01T00:00:00Z', COOKIE)], backend: 'default-web-80', want: DEFAULT },
  {
    name: 'every cookie attribute reaches the backend',
    ingresses: [app('a', '2024-01-01T00:00:00Z', {
      ...COOKIE, 'affinity-mode': 'persistent', 'session-cookie-name': 'SERVERID', 'session-cookie-path': '/p', 'session-cookie-domain': 'shop.test',
      'session-cookie-expires': '60', 'session-cookie-max-age': '120', 'session-cookie-secure': 'true', 'session-cookie-samesite': 'None',
      'session-cookie-conditional-samesite-none': 'true', 'session-cookie-change-on-failure': 'true',
    })],
    backend: 'default-web-80',
    want: {
      mode: 'persistent', cookie: 'SERVERID', path: '/p', domain: 'shop.test', expires: 60, maxAge: 120, secure: true, sameSite: 'None',
      conditionalSameSiteNone: true, changeOnFailure: true, ingresses: ['default/a'],
    },
  },
  {
    name: 'an older Ingress without affinity does not hide a newer one\'s (ingress-nginx takes the first type it sees)',
    ingresses: [app('a', '2024-01-02T00:00:00Z', COOKIE, '/a'), app('b', '2024-01-01T00:00:00Z', {}, '/b')],
    backend: 'default-web-80', want: DEFAULT,
  },
  {
    name: 'two Ingresses with affinity: the oldest decides the cookie, both set it',
    ingresses: [
      app('a', '2024-01-01T00:00:00Z', { ...COOKIE, 'session-cookie-name': 'OLD' }, '/a'),
      app('b', '2024-01-02T00:00:00Z', { ...COOKIE, 'session-cookie-name': 'NEW', 'affinity-mode': 'persistent' }, '/b'),
    ],
    backend: 'default-web-80', want: { ...DEFAULT, cookie: 'OLD', ingresses: ['default/a', 'default/b'] },
  },
  {
    name: 'a canary (sticky by default) gives its backend the main backend\'s affinity',
    ingresses: [app('a', '2024-01-01T00:00:00Z', COOKIE), app('c', '2024-01-02T00:00:00Z', { canary: 'true', 'canary-weight': '50' }, '/', 'web-canary')],
    backend: 'default-web-canary-80', want: DEFAULT,
  },
  {
    name: 'a canary with affinity-canary-behavior: legacy: its backend balances without affinity',
    ingresses: [
      app('a', '2024-01-01T00:00:00Z', COOKIE),
      app('c', '2024-01-02T00:00:00Z', { canary: 'true', 'canary-weight': '50', 'affinity-canary-behavior': 'legacy' }, '/', 'web-canary'),
    ],
    backend: 'default-web-canary-80', want: null,
  },
  {
    name: 'a canary of a main without affinity: none',
    ingresses: [app('a', '2024-01-01T00:00:00Z', {}), app('c', '2024-01-02T00:00:00Z', { canary: 'true', 'canary-weight': '50' }, '/', 'web-canary')],
    backend: 'default-web-canary-80', want: null,
  },
];

void describe('Backend.affinity', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const result = build(row.ingresses);
      assert.deepEqual(result.failures.filter((f) => f.warning !== true), []);
      assert.deepEqual(affinityOf(result, row.backend), row.want);
    });
  }
});

const warningRows: ReadonlyArray<{ name: string; annotations: Record<string, string>; warned: boolean; at?: string }> = [
  { name: 'use-regex without session-cookie-path: warned, served', annotations: { ...COOKIE, 'use-regex': 'true' }, warned: true },
  { name: 'use-regex with session-cookie-path: no warning', annotations: { ...COOKIE, 'use-regex': 'true', 'session-cookie-path': '/foo' }, warned: false },
  { name: 'no use-regex: no warning', annotations: COOKIE, warned: false, at: '/foo' },
  { name: 'use-regex without affinity: no warning', annotations: { 'use-regex': 'true' }, warned: false },
];

void describe('Backend.affinity: what ingress-nginx only warns about', () => {
  for (const row of warningRows) {
    void it(row.name, () => {
      const result = build([app('a', '2024-01-01T00:00:00Z', row.annotations, row.at ?? '/foo/[a-z]+', 'web', 'ImplementationSpecific')]);
      const warnings = result.failures.filter((f) => f.reason === 'AffinityCookiePathNotSet');
      assert.equal(warnings.length, row.warned ? 1 : 0);
      assert.equal(warnings[0]?.warning ?? true, true);
      assert.deepEqual(result.failures.filter((f) => f.warning !== true), []);
      assert.equal(result.model.backends.length, 1, 'the Ingress is served');
    });
  }
});
