import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Model } from '../model/types.ts';
import { createConfigRenderer, renderConfig } from './render-config.ts';
import { sizeServerNamesHash } from './config-view.ts';
import { RenderError } from './nginx-values.ts';
import type { RenderOptions } from './render-options.ts';
import { backend, goldenOptions, model, notFound, proxied, server } from './testdata/model-fixtures.ts';

function site(path: string, endpoints: string[], loadBalance: 'round_robin' | 'ewma' = 'round_robin'): Model {
  const web = { ...backend('default-web-80', endpoints.map((address) => ({ address, port: 8080 }))), loadBalance };
  return model([server('_', [notFound('/')]), server('a.example.com', [proxied(path, 'prefix', web.name)])], [web]);
}

void describe('renderConfig: determinism and the config version', () => {
  const base = renderConfig(site('/app', ['127.0.1.1']), goldenOptions());

  void it('is 16 hex characters', () => assert.match(base.version, /^[0-9a-f]{16}$/u));

  void it('same model and options twice: byte-identical conf and version', () => {
    const again = createConfigRenderer(goldenOptions()).render(site('/app', ['127.0.1.1']));
    assert.equal(again.conf, base.conf);
    assert.equal(again.version, base.version);
  });

  const same: [name: string, model: Model][] = [
    ['other endpoints', site('/app', ['127.0.2.1', '127.0.2.2'])],
    ['no endpoints', site('/app', [])],
  ];
  for (const [name, changed] of same) {
    void it(`dynamic change (${name}): identical conf and version`, () => {
      const rendered = renderConfig(changed, goldenOptions());
      assert.equal(rendered.conf, base.conf);
      assert.equal(rendered.version, base.version);
    });
  }

  const different: [name: string, model: Model, options: RenderOptions][] = [
    ['a path', site('/app2', ['127.0.1.1']), goldenOptions()],
    ['the http port', site('/app', ['127.0.1.1']), { ...goldenOptions(), httpPort: 8081 }],
    ['the prefix', site('/app', ['127.0.1.1']), goldenOptions(undefined, '/other/prefix')],
    ['the access log', site('/app', ['127.0.1.1']), { ...goldenOptions(), accessLog: false }],
    // EWMA adds a Lua log phase to the backend's locations (decide.ts: the algorithm is static).
    ['the load-balance algorithm', site('/app', ['127.0.1.1'], 'ewma'), goldenOptions()],
  ];
  for (const [name, changed, options] of different) {
    void it(`static change (${name}): different conf and version`, () => {
      const rendered = renderConfig(changed, options);
      assert.notEqual(rendered.conf, base.conf);
      assert.notEqual(rendered.version, base.version);
    });
  }
});

void describe('sizeServerNamesHash', () => {
  const rows: [name: string, names: string[], maxSize: number, bucketSize: number][] = [
    ['defaults for a few short names', ['_', 'a.example.com'], 1024, 128],
    ['bucket holds three 40-char names', ['x'.repeat(40)], 1024, 256],
    ['bucket holds three 60-char names', ['x'.repeat(60)], 1024, 256],
    ['bucket holds three 253-char names (the DNS limit)', ['x'.repeat(253)], 1024, 1024],
    ['max size grows with 3000 names', Array.from({ length: 3000 }, (_, i) => `h${i}.example.com`), 16384, 128],
  ];
  for (const [name, names, maxSize, bucketSize] of rows) {
    void it(name, () => assert.deepEqual(sizeServerNamesHash(names), { maxSize, bucketSize }));
  }
});

void describe('render options are checked', () => {
  const bad: [name: string, patch: Partial<RenderOptions>][] = [
    ['relative prefix', { prefix: 'prefix' }],
    ['relative templateDir', { templateDir: 'template' }],
    ['missing templateDir', { templateDir: '/nonexistent/templates' }],
    ['host name as listen address', { listenAddress: 'localhost' }],
    ['port 0', { httpPort: 0 }],
    ['port above 65535', { statusPort: 70000 }],
    ['status port equal to http port', { statusPort: 8080 }],
    ['zero workers', { workerProcesses: 0 }],
    ['fractional shutdown timeout', { workerShutdownTimeout: 1.5 }],
    ['unknown error log level', { errorLogLevel: 'loud' as RenderOptions['errorLogLevel'] }],
    ['quote in the Lua path', { dataplane: { modules: [], luaPackagePath: '/a/"?.lua;;', luaPackageCPath: '/a/?.so;;' } }],
    ['relative module path', { dataplane: { modules: ['lua.so'], luaPackagePath: '/a/?.lua;;', luaPackageCPath: '/a/?.so;;' } }],
  ];
  for (const [name, patch] of bad) {
    void it(`rejects ${name}`, () => {
      assert.throws(
        () => createConfigRenderer({ ...goldenOptions(), ...patch }),
        (error: unknown) => error instanceof RenderError && error.code === 'InvalidOptions',
      );
    });
  }

  void it('fills the defaults (worker_shutdown_timeout 240s, error_log notice, access log on)', () => {
    const { workerShutdownTimeout: _t, errorLogLevel: _l, accessLog: _a, ...minimal } = goldenOptions();
    const { conf } = renderConfig(model([], []), minimal);
    assert.match(conf, /^worker_shutdown_timeout 240s;$/mu);
    assert.match(conf, /^error_log "\/golden\/prefix\/error\.log" "notice";$/mu);
    assert.match(conf, /^ {4}access_log "\/golden\/prefix\/access\.log" upstreaminfo;$/mu);
  });
});
