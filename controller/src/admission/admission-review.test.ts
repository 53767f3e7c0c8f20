import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { V1Ingress } from '@kubernetes/client-node';
import { ann, deepFreeze, DEFAULT_OPTIONS, ingress, path, rule, service, snapshot, svc } from '../model/testdata/fixtures.ts';
import { createModelBuilder } from '../model/build.ts';
import { reviewAdmission } from './admission-review.ts';

/**
 * The cluster every row starts from: `old` (2024) holds a.example.com/, the canary `old-canary` waits for a main
 * Ingress on c.example.com/, `d-main` holds d.example.com/ with the canary `d-canary`, and their Service exists.
 */
const CLUSTER = deepFreeze(snapshot({
  ingresses: [
    ingress('old', { rules: [rule('a.example.com', path('/', svc('web', 80)))] }),
    ingress('old-canary', { annotations: { [ann('canary')]: 'true' }, rules: [rule('c.example.com', path('/', svc('web', 80)))] }),
    ingress('d-main', { rules: [rule('d.example.com', path('/', svc('web', 80)))] }),
    ingress('d-canary', { annotations: { [ann('canary')]: 'true' }, rules: [rule('d.example.com', path('/', svc('web', 80)))] }),
  ],
  services: [service('web', [{ port: 80 }])],
}));

/** A raw Ingress as the API server sends it in a review (no creationTimestamp on CREATE). */
function candidate(name: string, changes: { host?: string; path?: string; pathType?: string; annotations?: Record<string, string>; className?: string; service?: string; created?: string } = {}): Record<string, unknown> {
  const built: V1Ingress = ingress(name, {
    className: changes.className ?? 'nginx',
    annotations: changes.annotations,
    rules: [rule(changes.host ?? 'b.example.com', path(changes.path ?? '/', svc(changes.service ?? 'web', 80), changes.pathType))],
  });
  const metadata: Record<string, unknown> = { ...built.metadata, creationTimestamp: changes.created };
  return JSON.parse(JSON.stringify({ ...built, metadata })) as Record<string, unknown>;
}

function review(operation: string, object: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
    request: {
      uid: 'req-1', kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
      resource: { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' },
      namespace: 'default', name: (object as { metadata?: { name?: string } } | undefined)?.metadata?.name, operation, object, ...extra,
    },
  };
}

const decisionRows: { name: string; body: unknown; allowed: boolean; message?: RegExp; warning?: RegExp; warnings?: string[] }[] = [
  { name: 'a new Ingress on a free host is allowed', body: review('CREATE', candidate('new')), allowed: true },
  {
    name: 'an invalid annotation that refuses its Ingress is denied naming key and value',
    body: review('CREATE', candidate('new', { annotations: { [ann('load-balance')]: 'fastest' } })),
    allowed: false, message: /invalid value "fastest" for nginx\.ingress\.kubernetes\.io\/load-balance/,
  },
  {
    name: 'an invalid annotation ingress-nginx ignores is allowed with a warning: its default applies',
    body: review('CREATE', candidate('new', { annotations: { [ann('proxy-body-size')]: '1x' } })),
    allowed: true, warning: /invalid value "1x" for nginx\.ingress\.kubernetes\.io\/proxy-body-size: .*its default applies/,
  },
  {
    name: 'a value ingress-nginx takes that is not supported is denied, even where invalid ones are ignored',
    body: review('CREATE', candidate('new', { annotations: { [ann('proxy-ssl-verify-depth')]: '500' } })),
    allowed: false, message: /unsupported value "500" for nginx\.ingress\.kubernetes\.io\/proxy-ssl-verify-depth/,
  },
  {
    name: 'a regex path with catastrophic backtracking is denied saying why',
    body: review('CREATE', candidate('new', { path: '/(a+)+$', pathType: 'ImplementationSpecific', annotations: { [ann('use-regex')]: 'true' } })),
    allowed: false, message: /path "\/\(a\+\)\+\$" refused: regex path can backtrack super-linearly in NGINX/,
  },
  {
    name: 'a regex path nested deeper than PCRE2 allows is denied saying why',
    body: review('CREATE', candidate('new', { path: `/${'('.repeat(251)}a${')'.repeat(251)}`, pathType: 'ImplementationSpecific', annotations: { [ann('use-regex')]: 'true' } })),
    allowed: false, message: /regex groups nest 251 deep; NGINX's regex engine \(PCRE2\) allows at most 250/,
  },
  {
    name: 'a body size NGINX would overflow on is denied',
    body: review('CREATE', candidate('new', { annotations: { [ann('proxy-body-size')]: '8589934592g' } })),
    allowed: false, message: /proxy-body-size.*too large for NGINX: at most 8589934591g/,
  },
  {
    name: 'a snippet annotation is denied',
    body: review('CREATE', candidate('new', { annotations: { [ann('configuration-snippet')]: 'return 200;' } })),
    allowed: false, message: /configuration-snippet/,
  },
  {
    name: 'a host+path held by an older Ingress is denied naming the holder',
    body: review('CREATE', candidate('new', { host: 'a.example.com' })),
    allowed: false, message: /already served by .*default\/old/,
  },
  {
    name: 'a canary on the host+path of its main Ingress is allowed: it attaches, no conflict',
    body: review('CREATE', candidate('new-canary', { host: 'a.example.com', annotations: { [ann('canary')]: 'true', [ann('canary-weight')]: '10' } })),
    allowed: true, warnings: [],
  },
  {
    name: 'an Ingress on the host+path of an older canary is allowed: it becomes the canary\'s main',
    body: review('CREATE', candidate('new', { host: 'c.example.com' })),
    allowed: true, warnings: [],
  },
  {
    name: 'a canary without a main Ingress only warns (the main may be applied next)',
    body: review('CREATE', candidate('lonely', { host: 'b.example.com', annotations: { [ann('canary')]: 'true' } })),
    allowed: true, warning: /has no main Ingress serving it/,
  },
  {
    name: 'a second canary of one main path is denied naming the first',
    body: review('CREATE', candidate('second-canary', { host: 'd.example.com', annotations: { [ann('canary')]: 'true' } })),
    allowed: false, message: /already has the canary default\/d-canary \(older\)/,
  },
  {
    name: 'canary settings without canary: "true" are denied',
    body: review('CREATE', candidate('new', { annotations: { [ann('canary-weight')]: '10' } })),
    allowed: false, message: /canary-\* settings need canary: "true"/,
  },
  {
    name: 'an unsupported protective annotation is denied: the Ingress would not be served',
    body: review('CREATE', candidate('new', { annotations: { [ann('enable-modsecurity')]: 'true' } })),
    allowed: false, message: /enable-modsecurity asks for a protection resty-ingress does not support yet/,
  },
  {
    name: 'an unsupported harmless annotation is allowed with a warning',
    body: review('CREATE', candidate('new', { annotations: { [ann('ssl-prefer-server-ciphers')]: 'true' } })),
    allowed: true, warning: /ssl-prefer-server-ciphers is not supported; the Ingress is served without it/,
  },
  {
    name: 'an allow list that does not parse is denied naming key and value (never served open)',
    body: review('CREATE', candidate('new', { annotations: { [ann('allowlist-source-range')]: '10.0.0.0/8, office' } })),
    allowed: false, message: /invalid value "10\.0\.0\.0\/8, office" for nginx\.ingress\.kubernetes\.io\/allowlist-source-range/,
  },
  {
    name: 'an invalid CORS origin list is allowed with a warning (ingress-nginx falls back to *)',
    body: review('CREATE', candidate('new', { annotations: { [ann('enable-cors')]: 'true', [ann('cors-allow-origin')]: 'https://a.example/path' } })),
    allowed: true, warning: /invalid value "https:\/\/a\.example\/path" for nginx\.ingress\.kubernetes\.io\/cors-allow-origin/,
  },
  {
    name: 'a misspelt annotation is allowed with a warning',
    body: review('CREATE', candidate('new', { annotations: { [ann('proxy-body-sise')]: '8m' } })),
    allowed: true, warning: /proxy-body-sise is not an annotation .* \(a typo\?\)/,
  },
  {
    name: 'an UPDATE of the holder itself replaces it and is allowed',
    body: review('UPDATE', candidate('old', { host: 'a.example.com', created: '2024-01-01T00:00:00Z' })),
    allowed: true,
  },
  {
    name: 'an invalid path for its pathType is denied',
    body: review('CREATE', candidate('new', { path: 'no-slash', pathType: 'Exact' })),
    allowed: false, message: /path "no-slash" refused/,
  },
  {
    name: 'an Ingress of another class passes without checks',
    body: review('CREATE', candidate('theirs', { className: 'other', host: 'a.example.com', annotations: { [ann('proxy-body-size')]: '1x' } })),
    allowed: true,
  },
  {
    name: 'a missing Service only warns (it may be applied next)',
    body: review('CREATE', candidate('new', { service: 'later' })),
    allowed: true, warning: /Service default\/later not found/,
  },
  { name: 'DELETE is allowed', body: review('DELETE', undefined, { name: 'old', oldObject: candidate('old') }), allowed: true },
];

const badRows: { name: string; body: unknown; error: RegExp }[] = [
  { name: 'not an object', body: [1, 2], error: /not an AdmissionReview/ },
  { name: 'v1beta1 review', body: { ...review('CREATE', candidate('new')), apiVersion: 'admission.k8s.io/v1beta1' }, error: /admission\.k8s\.io\/v1/ },
  { name: 'no request', body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, error: /no request/ },
  { name: 'no uid', body: review('CREATE', candidate('new'), { uid: '' }), error: /uid/ },
  { name: 'another resource', body: review('CREATE', {}, { kind: { group: '', version: 'v1', kind: 'Service' } }), error: /Ingress only/ },
  { name: 'CREATE without an object', body: review('CREATE', 'oops'), error: /request\.object/ },
];

void describe('admission review', () => {
  for (const row of decisionRows) {
    void it(row.name, () => {
      const reply = reviewAdmission(row.body, CLUSTER, DEFAULT_OPTIONS);
      assert.equal(reply.status, 200, reply.status === 400 ? reply.error : '');
      if (reply.status !== 200) return;
      const { response } = reply.body;
      assert.equal(response.uid, 'req-1', 'the response answers the request uid');
      assert.equal(response.allowed, row.allowed, response.status?.message);
      if (row.message) assert.match(response.status?.message ?? '', row.message);
      if (row.warning) assert.match((response.warnings ?? []).join('\n'), row.warning);
      if (row.warnings) assert.deepEqual(response.warnings ?? [], row.warnings);
    });
  }
  void it('with the controller\'s long-lived builder, every review decides as with a fresh build', () => {
    const builder = createModelBuilder();
    let builds = 0;
    const build: typeof builder.build = (snap, options) => { builds += 1; return builder.build(snap, options); };
    for (const row of decisionRows) {
      assert.deepEqual(reviewAdmission(row.body, CLUSTER, DEFAULT_OPTIONS, build), reviewAdmission(row.body, CLUSTER, DEFAULT_OPTIONS), row.name);
    }
    assert.ok(builds > 0, 'the reviews went through the given builder');
  });
  const checkedRows: { name: string; body: unknown; checked: string | null }[] = [
    { name: 'an allowed Ingress of ours', body: review('CREATE', candidate('new')), checked: 'default/new' },
    { name: 'a denied Ingress of ours', body: review('CREATE', candidate('new', { host: 'a.example.com' })), checked: 'default/new' },
    { name: 'another class (not checked)', body: review('CREATE', candidate('theirs', { className: 'other' })), checked: null },
    { name: 'DELETE (not checked)', body: review('DELETE', undefined, { name: 'old', oldObject: candidate('old') }), checked: null },
  ];
  for (const row of checkedRows) {
    void it(`names the checked Ingress for the check metrics: ${row.name}`, () => {
      const reply = reviewAdmission(row.body, CLUSTER, DEFAULT_OPTIONS);
      assert.equal(reply.status, 200);
      const ref = reply.status === 200 ? reply.decision.ingress : undefined;
      assert.equal(ref ? `${ref.namespace}/${ref.name}` : ref, row.checked);
    });
  }
  for (const row of badRows) {
    void it(`400 for ${row.name}`, () => {
      const reply = reviewAdmission(row.body, CLUSTER, DEFAULT_OPTIONS);
      assert.equal(reply.status, 400);
      if (reply.status === 400) assert.match(reply.error, row.error);
    });
  }
});
