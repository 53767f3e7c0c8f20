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
    assert.match(notes, /controller\.addHeaders is not read/);
    assert.doesNotMatch(notes, /proxySetHeaders/, 'empty: nothing to say');
    assert.doesNotMatch(notes, /allowSnippetAnnotations/, 'false: nothing to say');
    assert.match(values.notes[0] ?? '', /^Helm values: read controller\.config/);
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
    { name: 'an ingress-nginx flag resty-ingress lacks', flag: 'enable-ssl-chain-completion', value: '', status: 'not-supported', note: /ingress-nginx flag/ },
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
