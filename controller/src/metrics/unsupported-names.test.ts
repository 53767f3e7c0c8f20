import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { buildModel } from '../model/build.ts';
import { ann, configMap, ingress, options, path, rule, service, snapshot, svc } from '../model/testdata/fixtures.ts';
import type { Failure } from '../model/types.ts';
import { createUnsupportedNameMetrics, MAX_SERIES } from './unsupported-names.ts';

async function lines(registry: Registry): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((line) => line.startsWith('resty_ingress_unsupported_'));
}

const web = service('web', [{ port: 80 }]);
const app = (name: string, annotations: Record<string, string>): ReturnType<typeof ingress> =>
  ingress(name, { annotations, rules: [rule(`${name}.example`, path('/', svc('web', 80)))] });

void describe('unsupported names metrics', () => {
  const rows: { name: string; annotations: Record<string, string>; data?: Record<string, string>; want: string[] }[] = [
    { name: 'supported annotations: no series', annotations: { [ann('proxy-body-size')]: '8m' }, want: [] },
    { name: 'an unsupported harmless annotation', annotations: { [ann('ssl-prefer-server-ciphers')]: 'true' },
      want: ['resty_ingress_unsupported_annotations{namespace="default",ingress="app",annotation="nginx.ingress.kubernetes.io/ssl-prefer-server-ciphers"} 1'] },
    { name: 'a typo', annotations: { [ann('proxy-body-sise')]: '8m' },
      want: ['resty_ingress_unsupported_annotations{namespace="default",ingress="app",annotation="nginx.ingress.kubernetes.io/proxy-body-sise"} 1'] },
    { name: 'a protective one (the Ingress is not served)', annotations: { [ann('enable-modsecurity')]: 'true' },
      want: ['resty_ingress_unsupported_annotations{namespace="default",ingress="app",annotation="nginx.ingress.kubernetes.io/enable-modsecurity"} 1'] },
    { name: 'ConfigMap keys: unknown and unsupported', annotations: {}, data: { 'enable-brotli': 'true', 'no-such-key': 'x' },
      want: ['resty_ingress_unsupported_config_keys{key="no-such-key"} 1', 'resty_ingress_unsupported_config_keys{key="enable-brotli"} 1'] },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const registry = new Registry();
      const metrics = createUnsupportedNameMetrics(registry);
      const { failures } = buildModel(snapshot({ ingresses: [app('app', row.annotations)], services: [web], configMaps: row.data ? [configMap(row.data)] : [] }),
        options(row.data ? { configMap: 'ingress/resty-ingress' } : {}));
      metrics.update(failures);
      assert.deepEqual((await lines(registry)).sort(), row.want.sort());
    });
  }

  void it('a failure that is gone takes its series with it', async () => {
    const registry = new Registry();
    const metrics = createUnsupportedNameMetrics(registry);
    metrics.update(buildModel(snapshot({ ingresses: [app('app', { [ann('ssl-prefer-server-ciphers')]: 'true' })], services: [web] }), options()).failures);
    metrics.update(buildModel(snapshot({ ingresses: [app('app', {})], services: [web] }), options()).failures);
    assert.deepEqual(await lines(registry), []);
  });

  void it(`at most ${MAX_SERIES} series`, async () => {
    const registry = new Registry();
    const metrics = createUnsupportedNameMetrics(registry);
    const many: Failure[] = Array.from({ length: MAX_SERIES + 10 }, (_, i) => ({
      ingress: { namespace: 'default', name: `app${i}` }, reason: 'UnknownAnnotation', field: 'metadata.annotations[x/typo]', message: 'm', warning: true,
    }));
    metrics.update(many);
    assert.equal((await lines(registry)).length, MAX_SERIES);
  });
});
