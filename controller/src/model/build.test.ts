import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { V1Ingress } from '@kubernetes/client-node';
import { buildModel } from './build.ts';
import { ann, deepFreeze, ingress, ingressClass, options, path, rule, service, slice, snapshot, svc } from './testdata/fixtures.ts';
import { configOf, failuresWith, findBackend, findLocation, hostnames, targetOf } from './testdata/inspect.ts';
import type { Snapshot } from './types.ts';

const web = service('web', [{ port: 80 }]);
const api = service('api', [{ port: 80 }]);
const older = ingress('older', { created: '2024-01-01T00:00:00Z', rules: [rule('h.example', path('/app', svc('web', 80)))] });
const newer = ingress('newer', { namespace: 'team', created: '2024-06-01T00:00:00Z', rules: [rule('H.example', path('/app/', svc('api', 80)))] });

void describe('conflicts: oldest wins', () => {
  const orders: { name: string; ingresses: V1Ingress[] }[] = [
    { name: 'older listed first', ingresses: [older, newer] },
    { name: 'newer listed first', ingresses: [newer, older] },
  ];
  for (const row of orders) {
    void it(row.name, () => {
      const result = buildModel(snapshot({ ingresses: row.ingresses, services: [web, service('api', [{ port: 80 }], 'team')] }), options());
      assert.equal(targetOf(findLocation(result, 'h.example', '/app')), 'backend:default-web-80');
      const conflicts = failuresWith(result, 'Conflict');
      assert.equal(conflicts.length, 1);
      assert.deepEqual(conflicts[0]?.ingress, { namespace: 'team', name: 'newer' });
      assert.equal(conflicts[0]?.field, 'spec.rules[0].http.paths[0].path');
      assert.match(conflicts[0]?.message ?? '', /default\/older/);
      assert.match(conflicts[0]?.message ?? '', /team\/newer/);
      // The loser's backend is not in the model: nothing routes to it.
      assert.equal(findBackend(result, 'team-api-80'), undefined);
    });
  }

  void it('equal timestamps fall back to namespace/name', () => {
    const a = ingress('a', { created: '2024-01-01T00:00:00Z', rules: [rule('h.example', path('/', svc('web', 80)))] });
    const b = ingress('b', { created: '2024-01-01T00:00:00Z', rules: [rule('h.example', path('/', svc('api', 80)))] });
    for (const ingresses of [[a, b], [b, a]]) {
      const result = buildModel(snapshot({ ingresses, services: [web, api] }), options());
      assert.equal(targetOf(findLocation(result, 'h.example', '/')), 'backend:default-web-80');
      assert.deepEqual(failuresWith(result, 'Conflict').map((failure) => failure.ingress?.name), ['b']);
    }
  });

  void it('the same path twice in one Ingress: the first is used', () => {
    const twice = ingress('twice', { rules: [rule('h.example', path('/a', svc('web', 80))), rule('H.EXAMPLE', path('/a/', svc('api', 80)))] });
    const result = buildModel(snapshot({ ingresses: [twice], services: [web, api] }), options());
    assert.equal(targetOf(findLocation(result, 'h.example', '/a')), 'backend:default-web-80');
    const [conflict] = failuresWith(result, 'Conflict');
    assert.equal(conflict?.field, 'spec.rules[1].http.paths[0].path');
    assert.match(conflict?.message ?? '', /appears twice in default\/twice/);
  });

  void it('different paths of the same host merge into one server', () => {
    const other = ingress('other', { created: '2024-06-01T00:00:00Z', rules: [rule('h.example', path('/api', svc('api', 80)))] });
    const result = buildModel(snapshot({ ingresses: [older, other], services: [web, api] }), options());
    assert.deepEqual(hostnames(result), ['_', 'h.example']);
    assert.equal(targetOf(findLocation(result, 'h.example', '/api')), 'backend:default-api-80');
    assert.equal(targetOf(findLocation(result, 'h.example', '/app')), 'backend:default-web-80');
    assert.deepEqual(result.failures, []);
  });
});

void describe('annotations in the model', () => {
  void it('an annotation that refuses its Ingress (invalid or unsupported) skips the whole Ingress, others still serve', () => {
    const bad = ingress('bad', { annotations: { [ann('load-balance')]: 'ewma; evil' }, rules: [rule('bad.example', path('/', svc('web', 80)))] });
    // ingress-nginx takes any integer depth; NGINX does not (unsupported).
    const deep = ingress('deep', { annotations: { [ann('proxy-ssl-verify-depth')]: '500' }, rules: [rule('deep.example', path('/', svc('web', 80)))] });
    const good = ingress('good', { rules: [rule('good.example', path('/', svc('web', 80)))] });
    const result = buildModel(snapshot({ ingresses: [bad, deep, good], services: [web] }), options());
    assert.deepEqual(hostnames(result), ['_', 'good.example']);
    assert.deepEqual(result.failures.map((failure) => `${failure.reason} ${failure.ingress?.name}`), ['InvalidAnnotation bad', 'InvalidAnnotation deep']);
  });

  void it('an invalid annotation ingress-nginx ignores: the Ingress is served with the default, and a warning', () => {
    const lenient = ingress('lenient', {
      annotations: { [ann('proxy-body-size')]: '1m; evil', [ann('proxy-read-timeout')]: '300' },
      rules: [rule('lenient.example', path('/', svc('web', 80)))],
    });
    const result = buildModel(snapshot({ ingresses: [lenient], services: [web] }), options());
    assert.deepEqual(hostnames(result), ['_', 'lenient.example']);
    assert.deepEqual(configOf(result, findLocation(result, 'lenient.example', '/'), 'proxy'), { bodySize: '1m', connectTimeout: 5, readTimeout: 300, sendTimeout: 60 });
    assert.deepEqual(result.failures.map((failure) => `${failure.reason} ${failure.ingress?.name} ${failure.warning === true}`), ['IgnoredInvalidAnnotation lenient true']);
  });

  void it('a snippet annotation skips the Ingress', () => {
    const snippet = ingress('s', { annotations: { [ann('configuration-snippet')]: 'return 200;' }, rules: [rule('s.example', path('/', svc('web', 80)))] });
    const result = buildModel(snapshot({ ingresses: [snippet], services: [web] }), options());
    assert.deepEqual(hostnames(result), ['_']);
    assert.deepEqual(result.failures.map((failure) => failure.reason), ['SnippetNotAllowed']);
  });

  void it('location settings apply to the carrying Ingress only', () => {
    const tuned = ingress('tuned', {
      annotations: { [ann('proxy-body-size')]: '8m', [ann('proxy-read-timeout')]: '300', [ann('backend-protocol')]: 'HTTPS' },
      rules: [rule('h.example', path('/tuned', svc('web', 80)))],
    });
    const plain = ingress('plain', { rules: [rule('h.example', path('/plain', svc('web', 80)))] });
    const result = buildModel(snapshot({ ingresses: [tuned, plain], services: [web] }), options());
    const tunedLocation = findLocation(result, 'h.example', '/tuned');
    const plainLocation = findLocation(result, 'h.example', '/plain');
    assert.deepEqual(configOf(result, tunedLocation, 'proxy'), { bodySize: '8m', connectTimeout: 5, readTimeout: 300, sendTimeout: 60 });
    assert.deepEqual(configOf(result, tunedLocation, 'backendProtocol'), { protocol: 'HTTPS' });
    assert.deepEqual(configOf(result, plainLocation, 'proxy'), { bodySize: '1m', connectTimeout: 5, readTimeout: 60, sendTimeout: 60 });
    assert.deepEqual(configOf(result, plainLocation, 'backendProtocol'), { protocol: 'HTTP' });
    // The plain Ingress carries no policy of its own: it follows the global settings.
    assert.deepEqual(plainLocation?.policy, {});
  });

  void it('rewrite-target makes ImplementationSpecific paths regex and is carried on each location', () => {
    const rewrite = ingress('rw', {
      annotations: { [ann('rewrite-target')]: '/$2' },
      rules: [rule('h.example', path('/api(/|.*)(.*)', svc('web', 80), 'ImplementationSpecific'), path('/exact', svc('web', 80), 'Exact'))],
    });
    const result = buildModel(snapshot({ ingresses: [rewrite], services: [web] }), options());
    const regex = findLocation(result, 'h.example', '/api(/|.*)(.*)');
    assert.equal(regex?.match, 'regex');
    assert.equal(configOf(result, regex, 'rewrite')?.target, '/$2');
    assert.equal(configOf(result, findLocation(result, 'h.example', '/exact'), 'rewrite')?.target, '/$2');
    // ssl-redirect with rewrite-target: the route redirects through the location's error page.
    assert.match(regex?.route.kind === 'backend' ? regex.route.key : '', /^e default-web-80 h\.example default rw web \/api\(\/\|\.\*\)\(\.\*\)$/u);
  });

  void it('load-balance: the oldest Ingress using a backend decides', () => {
    const first = ingress('first', { created: '2024-01-01T00:00:00Z', annotations: { [ann('load-balance')]: 'ewma' },
      rules: [rule('a.example', path('/', svc('web', 80)))] });
    const second = ingress('second', { created: '2024-02-01T00:00:00Z', annotations: { [ann('load-balance')]: 'round_robin' },
      rules: [rule('b.example', path('/', svc('web', 80)))] });
    for (const ingresses of [[first, second], [second, first]]) {
      const result = buildModel(snapshot({ ingresses, services: [web] }), options());
      assert.equal(findBackend(result, 'default-web-80')?.loadBalance, 'ewma');
    }
  });
});

/** Every string anywhere in a value. */
function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (value !== null && typeof value === 'object') for (const child of Object.values(value)) stringsIn(child, out);
  return out;
}

void describe('hostile strings never reach the model', () => {
  const hostile = ['\n', ';', '{', '}', '"', "'", '$host', '#', '\\', ' '];
  const ingresses: V1Ingress[] = [];
  hostile.forEach((bad, index) => {
    ingresses.push(ingress(`host-${index}`, { rules: [rule(`a${bad}b.example`, path('/', svc('web', 80)))] }));
    ingresses.push(ingress(`path-${index}`, { rules: [rule('p.example', path(`/p${index}${bad}x`, svc('web', 80)))] }));
    // `$` is a legal anchor in regex paths (NGINX never expands variables there), so not hostile for them.
    if (bad !== '$host') {
      ingresses.push(ingress(`regex-${index}`, { annotations: { [ann('use-regex')]: 'true' },
        rules: [rule('r.example', path(`/r${index}${bad}x`, svc('web', 80), 'ImplementationSpecific'))] }));
    }
    ingresses.push(ingress(`ann-${index}`, { annotations: { [ann('rewrite-target')]: `/x${bad}y` },
      rules: [rule('w.example', path(`/w${index}`, svc('web', 80)))] }));
    ingresses.push(ingress(`svc-${index}`, { rules: [rule('s.example', path(`/s${index}`, svc(`web${bad}`, 80)))] }));
  });

  void it('each hostile Ingress becomes a failure or a warning and no model string carries the characters', () => {
    const result = buildModel(snapshot({ ingresses, services: [web] }), options({ defaultBackendService: 'a;b/c' }));
    // The ConfigMap's log format is the one string allowed `"`, `{`, `}`, `$` and spaces (JSON formats);
    // it comes from no Ingress and has its own grammar (log-format.test.ts, render/access-log.test.ts). So are
    // ingress-nginx's default CORS header lists, with their spaces (features/cors.ts; rendered quoted), and
    // its default auth-cache-duration (`200 202 401 5m`: words of a grammar, external-auth-cache.ts).
    const fromIngresses = { ...result.model, settings: { ...result.model.settings, accessLog: null, cors: null, externalAuth: null } };
    // A route key joins seven validated fields with single spaces (model/route-key.ts): each field is checked.
    const routeKeys = new Set(result.model.servers.flatMap((server) => server.locations.map((location) => (location.route.kind === 'backend' ? location.route.key : ''))));
    routeKeys.delete(''); // not a key: the empty default of a setting (auth-realm) is a plain string
    for (const text of stringsIn(fromIngresses)) {
      const fields = routeKeys.has(text) ? text.split(' ') : [text];
      if (routeKeys.has(text)) assert.equal(fields.length, 7, text);
      for (const field of fields) {
        assert.doesNotMatch(field, /[\s;{}"'#\\]/, text);
        assert.doesNotMatch(field, /\$(?![1-9])/, text);
      }
    }
    for (const failure of result.failures) assert.doesNotMatch(failure.message, /[\n\r]/);
    // One failure per hostile Ingress of 4 kinds × each character (less the regex `$` row), the bad flag, and the
    // rewrite-target ingress-nginx would take (`$host`: unsupported). The other rewrite targets are invalid for
    // ingress-nginx too: ignored with a warning, their Ingresses served without a rewrite.
    const [warnings, refusals] = [result.failures.filter((failure) => failure.warning === true), result.failures.filter((failure) => failure.warning !== true)];
    assert.equal(refusals.length, hostile.length * 4 - 1 + 1 + 1);
    assert.deepEqual(warnings.map((failure) => `${failure.reason} ${failure.ingress?.name}`),
      hostile.flatMap((bad, index) => (bad === '$host' ? [] : [`IgnoredInvalidAnnotation ann-${index}`])));
    assert.deepEqual(findLocation(result, 'w.example', '/w0')?.policy, { rewrite: { target: null, useRegex: false } });
  });
});

void describe('robustness', () => {
  void it('garbage objects become failures, never a crash', () => {
    const garbage = [
      null,
      { metadata: { name: 'no-namespace' }, spec: { ingressClassName: 'nginx' } },
      { metadata: { namespace: 'default', name: 'rules-not-array' }, spec: { ingressClassName: 'nginx', rules: 'x' } },
      { metadata: { namespace: 'default', name: 'paths-not-array' }, spec: { ingressClassName: 'nginx', rules: [{ host: 'g.example', http: { paths: 5 } }] } },
      { metadata: { namespace: 'default', name: 'null-path' }, spec: { ingressClassName: 'nginx', rules: [{ http: { paths: [null] } }] } },
      { metadata: { namespace: 'default', name: 'bad-time', creationTimestamp: 'yesterday' }, spec: { ingressClassName: 'nginx' } },
    ] as unknown as V1Ingress[];
    const broken = { ingresses: garbage, ingressClasses: [null, { spec: {} }, ingressClass('nginx')], services: [null, {}], endpointSlices: [null, { metadata: {} }] };
    const result = buildModel({ ...snapshot(), ...broken } as unknown as Snapshot, options({ watchIngressWithoutClass: true }));
    assert.ok(hostnames(result).includes('g.example'));
    assert.deepEqual(failuresWith(result, 'InvalidName').length, 2);
  });

  void it('an Ingress that breaks the builder costs only itself (InternalError)', () => {
    const exploding = ingress('exploding', { created: '2023-01-01T00:00:00Z' });
    Object.defineProperty(exploding.spec, 'rules', { get: () => { throw new Error('boom\nsecond line'); } });
    const fine = ingress('fine', { rules: [rule('fine.example', path('/', svc('web', 80)))] });
    const result = buildModel(snapshot({ ingresses: [exploding, fine], services: [web] }), options());
    assert.deepEqual(hostnames(result), ['_', 'fine.example']);
    const [failure] = failuresWith(result, 'InternalError');
    assert.deepEqual(failure?.ingress, { namespace: 'default', name: 'exploding' });
    assert.doesNotMatch(failure?.message ?? '', /\n/);
  });

  void it('never mutates the snapshot (frozen input)', () => {
    const frozen = deepFreeze(snapshot({
      ingresses: [older, newer, ingress('d', { defaultBackend: svc('web', 80), annotations: { [ann('use-regex')]: 'true' } })],
      services: [web],
      endpointSlices: [slice('web-1', 'web', [{ port: 8080 }], [{ addresses: ['10.0.0.2'] }, { addresses: ['10.0.0.1'] }])],
    }));
    const before = JSON.stringify(frozen);
    buildModel(frozen, options({ defaultBackendService: 'default/web' }));
    assert.equal(JSON.stringify(frozen), before);
  });
});

/** A seeded shuffle (LCG): reproducible, different per seed. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const copy = [...items];
  let state = seed;
  for (let i = copy.length - 1; i > 0; i -= 1) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const j = state % (i + 1);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

void describe('determinism', () => {
  const base = snapshot({
    ingresses: [
      older, newer,
      ingress('c', { created: '2024-03-01T00:00:00Z', annotations: { [ann('load-balance')]: 'ewma' },
        rules: [rule('b.example', path('/x', svc('web', 80), 'Exact'), path('/', svc('api', 80))), rule('', path('/any', svc('web', 80)))] }),
      ingress('d', { created: '2024-03-01T00:00:00Z', defaultBackend: svc('api', 80), rules: [rule('a.example', path('/y', svc('gone', 80)))] }),
      ingress('e', { created: '2024-04-01T00:00:00Z', annotations: { [ann('use-regex')]: 'x' }, rules: [rule('e.example')] }),
      ingress('f', { created: '2024-04-01T00:00:00Z', annotations: { [ann('load-balance')]: 'x' }, rules: [rule('f.example')] }),
    ],
    services: [web, api],
    endpointSlices: [
      slice('web-1', 'web', [{ port: 80 }], [{ addresses: ['10.0.0.3'] }, { addresses: ['10.0.0.1'] }]),
      slice('web-2', 'web', [{ port: 80 }], [{ addresses: ['10.0.0.2'] }, { addresses: ['10.0.0.1'] }]),
      slice('api-1', 'api', [{ port: 80 }], [{ addresses: ['10.0.1.1'], ready: false }, { addresses: ['10.0.1.2'] }]),
    ],
  });
  const expected = buildModel(base, options());

  for (const seed of [1, 7, 42, 1234]) {
    void it(`shuffled input (seed ${seed}) gives a deep-equal result`, () => {
      const input: Snapshot = {
        ...base,
        ingresses: shuffled(base.ingresses, seed),
        services: shuffled(base.services, seed),
        endpointSlices: shuffled(base.endpointSlices, seed).map((item) => ({ ...item, endpoints: shuffled(item.endpoints, seed) })),
      };
      assert.deepEqual(buildModel(input, options()), expected);
    });
  }

  void it('the reference case itself is non-trivial', () => {
    assert.deepEqual(hostnames(expected), ['_', 'a.example', 'b.example', 'e.example', 'h.example']);
    assert.deepEqual(expected.failures.map((failure) => `${failure.reason} ${failure.ingress?.name}`),
      ['IgnoredInvalidAnnotation e', 'InvalidAnnotation f', 'Conflict newer', 'ServiceNotFound d']);
    assert.deepEqual(findBackend(expected, 'default-web-80')?.endpoints.map((endpoint) => endpoint.address), ['10.0.0.1', '10.0.0.2', '10.0.0.3']);
  });
});
