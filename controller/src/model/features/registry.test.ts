// The registry against ingress-nginx v1.15.1's names (ingress-nginx-names.ts, gathered
// from its docs and annotation parsers): every name a module declares is one of
// ingress-nginx's, with its scope and risk; a name belongs to one module; the modules'
// defaults are ingress-nginx's defaults; every proof file and template exists.

import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { INGRESS_NGINX_ANNOTATIONS, INGRESS_NGINX_CONFIG_KEYS } from './ingress-nginx-names.ts';
import { DEFAULT_SETTINGS } from './parse.ts';
import { DYNAMIC_FEATURES, FEATURES, LOCATION_FEATURES, featureNamed } from './registry.ts';
import { described, readConfigMap } from './testing.ts';

const REPOSITORY = join(import.meta.dirname, '..', '..', '..', '..');
const TEMPLATES = join(REPOSITORY, 'rootfs', 'etc', 'nginx', 'template');

const annotations = new Map(INGRESS_NGINX_ANNOTATIONS.map((item) => [item.name, item]));
const configKeys = new Map(INGRESS_NGINX_CONFIG_KEYS.map((item) => [item.name, item]));

/** Each declared name with the module declaring it. */
const declared = FEATURES.flatMap((feature) => feature.keys.map((key) => ({ feature: feature.name, key })));

void describe('every declared name is ingress-nginx\'s', () => {
  for (const { feature, key } of declared) {
    const { annotation, configKey } = key;
    if (annotation) {
      void it(`${feature}: annotation ${annotation.name}, ${annotation.scope} scope, ${annotation.risk} risk`, () => {
        const known = annotations.get(annotation.name);
        assert.ok(known, `${annotation.name} is no ingress-nginx annotation`);
        // An alias is declared only beside the name it stands for (the module reads them together).
        if (known.aliasOf !== undefined) assert.ok(declared.some((other) => other.key.annotation?.name === known.aliasOf), 'declare the name the alias stands for');
        assert.deepEqual([annotation.scope, annotation.risk], [known.scope.toLowerCase(), known.risk]);
      });
    }
    if (configKey) {
      void it(`${feature}: ConfigMap key ${configKey}`, () => assert.ok(configKeys.has(configKey), `${configKey} is no ingress-nginx ConfigMap key`));
      // The global value starts where ingress-nginx's does: its default, written in the ConfigMap, changes nothing.
      void it(`${feature}: ingress-nginx's default for ${configKey} is the module's`, () => {
        const read = readConfigMap({ [configKey]: configKeys.get(configKey)?.default });
        assert.deepEqual(described(read.failures), []);
        assert.deepEqual(read.settings, DEFAULT_SETTINGS);
      });
    }
    void it(`${feature}: ${annotation?.name ?? configKey} is read from somewhere`, () => assert.ok(annotation || configKey));
  }
});

void describe('every name belongs to one module', () => {
  const owners = (names: (string | undefined)[]): string[] => names.filter((name, at) => name !== undefined && names.indexOf(name) !== at) as string[];
  void it('no annotation is declared twice', () => assert.deepEqual(owners(declared.map(({ key }) => key.annotation?.name)), []));
  void it('no ConfigMap key is declared twice', () => assert.deepEqual(owners(declared.map(({ key }) => key.configKey)), []));
  void it('no module name twice, and each is found by name', () => {
    assert.equal(new Set(FEATURES.map((feature) => feature.name)).size, FEATURES.length);
    for (const feature of FEATURES) assert.equal(featureNamed(feature.name), feature);
  });
  void it('an unknown module name throws', () => assert.throws(() => featureNamed('nope' as 'proxy'), /no feature nope/u));
  void it('a ConfigMap key of an annotation\'s name is the same key: global value and override parse alike', () => {
    // Except where ingress-nginx reads them otherwise: its ConfigMap lists drop empty items (splitAndTrimSpace),
    // its annotation validator refuses them, and an empty list annotation denies the location.
    // server-snippet: the ConfigMap's goes in every server besides each Ingress's (ingress-nginx prints both).
    const readOtherwise = new Set(['whitelist-source-range', 'denylist-source-range', 'server-snippet']);
    for (const { key } of declared) {
      const sameName = declared.find((other) => other.key.annotation?.name === key.configKey);
      if (key.configKey && sameName && !readOtherwise.has(key.configKey)) assert.equal(sameName.key, key, key.configKey);
    }
  });
});

void describe('the registry\'s views', () => {
  void it('the location features, in registry order', () => {
    assert.deepEqual(LOCATION_FEATURES.map((feature) => feature.name), ['redirect', 'sslRedirect', 'accessControl', 'cors', 'proxy', 'proxyBuffers', 'proxyRewrites', 'connectionHeader', 'rewrite', 'backendProtocol', 'fastcgi', 'proxySsl',
      'customErrors', 'mirror', 'upstreamHeaders', 'nextUpstream', 'clientCerts', 'rateLimit', 'satisfy', 'externalAuth', 'basicAuth', 'serverAlias', 'sslPassthrough', 'snippets']);
  });
  void it('the dynamic features', () => assert.deepEqual(DYNAMIC_FEATURES.map((feature) => feature.name), ['loadBalance', 'upstreamHash', 'canary', 'affinity', 'serviceUpstream']));
  void it('modules, their defaults and keys are frozen', () => {
    assert.ok(Object.isFrozen(FEATURES));
    for (const feature of FEATURES) assert.ok(Object.isFrozen(feature) && Object.isFrozen(feature.defaults) && Object.isFrozen(feature.keys), feature.name);
  });
});

void describe('every proof and template exists', () => {
  for (const feature of FEATURES) {
    void it(`${feature.name}: its proof files`, () => {
      assert.ok(feature.proof.some((file) => file.startsWith('controller/src/model/features/') && file.endsWith('.test.ts')), 'a unit test');
      assert.deepEqual(feature.proof.filter((file) => !existsSync(join(REPOSITORY, file))), []);
    });
    if (feature.output.kind === 'location' && feature.output.template !== null) {
      const template = feature.output.template;
      void it(`${feature.name}: its template ${template}`, () => assert.ok(existsSync(join(TEMPLATES, template))));
    }
  }
});
