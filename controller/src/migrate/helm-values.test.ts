// Helm values as resty-ingress's chart reads them, and extraArgs checked by
// the controller's own flag parser.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkFlag, readHelmValues } from './helm-values.ts';
import { ManifestError } from './manifests.ts';

void describe('readHelmValues', () => {
  const values = readHelmValues(`
controller:
  ingressClass: nginx-internal
  ingressClassResource: { controllerValue: example.com/internal }
  watchIngressWithoutClass: true
  config:
    proxy-read-timeout: 300
    use-forwarded-headers: "true"
    log-format-escape-json: true
    custom-http-errors: [404, 503]
  extraArgs:
    enable-ssl-passthrough: ""
    default-ssl-certificate: ingress-nginx/wildcard
  addHeaders: { X-Frame-Options: DENY }
  proxySetHeaders: {}
  allowSnippetAnnotations: false
`, 'values.yaml');

  void it('controller.config becomes ConfigMap data, scalars as the chart quotes them', () => {
    assert.deepEqual(values.config, { 'log-format-escape-json': 'true', 'proxy-read-timeout': '300', 'use-forwarded-headers': 'true' });
  });

  void it('extraArgs become flags, sorted, an empty value a bare flag', () => {
    assert.deepEqual(values.extraArgs, [{ name: 'default-ssl-certificate', value: 'ingress-nginx/wildcard' }, { name: 'enable-ssl-passthrough', value: '' }]);
  });

  void it('reads the class values', () => {
    assert.deepEqual(values.selection, { ingressClass: 'nginx-internal', controllerClass: 'example.com/internal', watchIngressWithoutClass: true });
  });

  void it('says what it leaves out: non-scalar config values, ConfigMap keys ingress-nginx\'s chart derives from other values (when set)', () => {
    const notes = values.notes.join('\n');
    assert.match(notes, /controller\.config\.custom-http-errors is left out/);
    assert.match(notes, /controller\.addHeaders: the chart renders these headers as the ConfigMap <release>-custom-add-headers/);
    assert.doesNotMatch(notes, /controller\.proxySetHeaders/, 'empty: nothing to say');
    assert.doesNotMatch(notes, /controller\.allowSnippetAnnotations:/, 'false: nothing to say');
    assert.match(values.notes[0] ?? '', /^Helm values: read controller\.config/);
  });

  void it('controller.allowSnippetAnnotations sets allow-snippet-annotations as the chart does, unless controller.config sets it', () => {
    const rows = [
      { name: 'true, config silent: set', text: 'controller:\n  allowSnippetAnnotations: true\n', want: 'true' },
      { name: 'true, config says false: config wins', text: 'controller:\n  allowSnippetAnnotations: true\n  config: { allow-snippet-annotations: "false" }\n', want: 'false' },
      { name: 'false: not set', text: 'controller:\n  allowSnippetAnnotations: false\n', want: undefined },
    ];
    for (const row of rows) assert.equal(readHelmValues(row.text, 'values.yaml').config['allow-snippet-annotations'], row.want, row.name);
  });

  void it('empty values read as nothing', () => {
    const empty = readHelmValues('', 'values.yaml');
    assert.deepEqual([empty.config, empty.extraArgs, empty.selection], [{}, [], {}]);
  });

  void it('a YAML error names the file', () => {
    assert.throws(() => readHelmValues('controller: [\n', 'values.yaml'), ManifestError);
  });
});

void describe('checkFlag', () => {
  const rows: { name: string; flag: string; value: string; status: string; note?: RegExp }[] = [
    { name: 'a flag both have, valid value', flag: 'default-ssl-certificate', value: 'ingress-nginx/wildcard', status: 'supported' },
    { name: 'a bare boolean flag', flag: 'watch-ingress-without-class', value: '', status: 'supported' },
    { name: 'a flag both have, a value the controller refuses', flag: 'http-port', value: 'eighty', status: 'invalid-value', note: /would not start: .*--http-port/ },
    { name: 'ssl passthrough: supported (bare, as the chart renders an empty value)', flag: 'enable-ssl-passthrough', value: '', status: 'supported', note: /accepted/ },
    { name: 'a refused flag with a value', flag: 'watch-namespace-selector', value: 'team=a', status: 'not-supported', note: /would not start .*--watch-namespace-selector=team=a is not supported: watch one namespace/ },
    { name: 'an empty string flag renders bare and needs a value, as with ingress-nginx\'s chart', flag: 'watch-namespace-selector', value: '', status: 'invalid-value', note: /--watch-namespace-selector needs a value/ },
    { name: 'a harmless ingress-nginx flag: ignored with a warning', flag: 'profiling', value: 'true', status: 'ignored', note: /no Go profiler/ },
    { name: 'klog verbosity: supported as a log level', flag: 'v', value: '2', status: 'supported', note: /--log-level info/ },
    { name: 'an ingress-nginx flag we ignore, with a value pflag refuses', flag: 'sync-period', value: 'soon', status: 'invalid-value', note: /--sync-period/ },
    { name: 'a flag nobody has', flag: 'enable-magic', value: 'true', status: 'unknown', note: /neither/ },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const report = checkFlag(row.flag, row.value);
      assert.equal(report.status, row.status, report.note);
      assert.equal(report.name, row.flag);
      assert.equal(report.value, row.value);
      if (row.note) assert.match(report.note, row.note);
    });
  }
});
