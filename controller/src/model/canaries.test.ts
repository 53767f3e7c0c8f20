// The route policy a canary Ingress becomes (Model.routes): what Lua gets for
// its weight. Lua takes a weight only up to weightTotal and draws from
// max(100, weightTotal), so the split is pushed with that draw range as the
// total and the weight within it: the same odds, and always a body Lua takes.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { buildModel } from './build.ts';
import { ann, ingress, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';
import type { CanarySplit } from './types.ts';

/** The split of a canary of `main` (host canary.test, path /) with these canary-* annotations. */
function splitFor(annotations: Record<string, string>): CanarySplit | undefined {
  const main = ingress('main', { rules: [rule('canary.test', path('/', svc('web', 80)))] });
  const canary = ingress('main-canary', {
    created: '2024-01-02T00:00:00Z',
    annotations: { [ann('canary')]: 'true', ...Object.fromEntries(Object.entries(annotations).map(([key, value]) => [ann(key), value])) },
    rules: [rule('canary.test', path('/', svc('web-canary', 80)))],
  });
  const { model } = buildModel(snapshot({ ingresses: [main, canary], services: [service('web', [{ port: 80 }]), service('web-canary', [{ port: 80 }])] }), options());
  return model.routes[0]?.canary;
}

const rows: ReadonlyArray<{ name: string; annotations: Record<string, string>; want: Pick<CanarySplit, 'weight' | 'weightTotal'> }> = [
  { name: 'weight 10 of the default 100', annotations: { 'canary-weight': '10' }, want: { weight: 10, weightTotal: 100 } },
  { name: 'weight 0: none by weight', annotations: { 'canary-weight': '0' }, want: { weight: 0, weightTotal: 100 } },
  { name: 'weight equal to the total: always', annotations: { 'canary-weight': '100' }, want: { weight: 100, weightTotal: 100 } },
  // Lua refused the whole routes push for it (found by lua/body-properties.test.ts).
  { name: 'weight 1000000 of the default 100 ("always"): pushed as 100 of 100', annotations: { 'canary-weight': '1000000' }, want: { weight: 100, weightTotal: 100 } },
  { name: 'weight 150 of 100: pushed as 100 of 100', annotations: { 'canary-weight': '150' }, want: { weight: 100, weightTotal: 100 } },
  { name: 'weight 3 of 1000', annotations: { 'canary-weight': '3', 'canary-weight-total': '1000' }, want: { weight: 3, weightTotal: 1000 } },
  { name: 'weight 2000 of 1000: pushed as 1000 of 1000', annotations: { 'canary-weight': '2000', 'canary-weight-total': '1000' }, want: { weight: 1000, weightTotal: 1000 } },
  // A total below 100 draws from 100 (ingress-nginx), so 50 of 10 is one request in two.
  { name: 'weight 50 of 10: Lua draws from 100, so 50 of 100', annotations: { 'canary-weight': '50', 'canary-weight-total': '10' }, want: { weight: 50, weightTotal: 100 } },
  { name: 'weight 5 of 10: 5 of 100', annotations: { 'canary-weight': '5', 'canary-weight-total': '10' }, want: { weight: 5, weightTotal: 100 } },
  { name: 'weight 500 of 10: always, 100 of 100', annotations: { 'canary-weight': '500', 'canary-weight-total': '10' }, want: { weight: 100, weightTotal: 100 } },
];

void describe('canary split: the weight Lua gets', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const split = splitFor(row.annotations);
      assert.ok(split, 'the canary attached to its main location');
      assert.deepEqual({ weight: split.weight, weightTotal: split.weightTotal }, row.want);
      assert.ok(split.weight <= split.weightTotal, 'Lua takes a weight only up to weightTotal');
    });
  }
});

/** A main Ingress whose spec.defaultBackend serves the catch-all's `/`, and a canary of it. */
void describe('canary spec.defaultBackend: the catch-all server\'s / (as ingress-nginx merges it into the default server)', () => {
  const services = [service('web', [{ port: 80 }]), service('web-canary', [{ port: 80 }])];
  const canaryOf = (fixture: Parameters<typeof ingress>[1]): ReturnType<typeof ingress> =>
    ingress('main-canary', { created: '2024-01-02T00:00:00Z', annotations: { [ann('canary')]: 'true', [ann('canary-weight')]: '30' }, ...fixture });
  const rows: { name: string; main: Parameters<typeof ingress>[1]; canary: Parameters<typeof ingress>[1]; want: { key?: RegExp; weight?: number; failure?: RegExp } }[] = [
    {
      name: 'main and canary both by spec.defaultBackend: the split lands on the catch-all\'s /',
      main: { defaultBackend: svc('web', 80) },
      canary: { defaultBackend: svc('web-canary', 80) },
      want: { key: / _ /u, weight: 30 },
    },
    {
      name: 'the main serves the catch-all\'s / through a rule without host: the canary\'s defaultBackend attaches there',
      main: { rules: [rule('', path('/', svc('web', 80)))] },
      canary: { defaultBackend: svc('web-canary', 80) },
      want: { key: / _ /u, weight: 30 },
    },
    {
      name: 'no main on the catch-all: CanaryWithoutMain on spec.defaultBackend, not a silent drop',
      main: { rules: [rule('a.test', path('/', svc('web', 80)))] },
      canary: { defaultBackend: svc('web-canary', 80) },
      want: { failure: /^CanaryWithoutMain spec\.defaultBackend canary spec\.defaultBackend \(the catch-all server's \/\) has no main/u },
    },
    {
      name: 'a refused spec.defaultBackend of a canary is reported',
      main: { defaultBackend: svc('web', 80) },
      canary: { defaultBackend: { service: { name: 'Bad_Name', port: { number: 80 } } } },
      want: { failure: /^InvalidBackend spec\.defaultBackend default backend refused/u },
    },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const { model, failures } = buildModel(snapshot({ ingresses: [ingress('main', row.main), canaryOf(row.canary)], services }), options());
      const described = failures.map((f) => `${f.reason} ${f.field} ${f.message}`);
      if (row.want.failure !== undefined) {
        assert.ok(described.some((text) => row.want.failure?.test(text)), described.join('\n'));
        assert.deepEqual(model.routes, [], 'no split without its main');
        return;
      }
      assert.deepEqual(described, []);
      assert.equal(model.routes.length, 1);
      assert.match(model.routes[0]?.key ?? '', row.want.key ?? /./u);
      assert.equal(model.routes[0]?.canary?.weight, row.want.weight);
      assert.equal(model.routes[0]?.canary?.backend, 'default-web-canary-80');
      assert.ok(model.backends.some((backend) => backend.name === 'default-web-canary-80'), 'the canary backend is registered');
    });
  }
});
