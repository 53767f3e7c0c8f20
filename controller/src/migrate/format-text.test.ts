// The text report: what a person reads first. Each row builds a report from
// objects and checks the lines that carry its answer.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatText } from './format-text.ts';
import { buildReport } from './report.ts';
import { configMap, ingress, nginxClass, requestOf, service } from './testdata/objects.ts';

interface Row {
  readonly name: string;
  readonly objects: readonly object[];
  readonly lines: readonly (string | RegExp)[];
  readonly absent?: readonly RegExp[];
}

const rows: readonly Row[] = [
  {
    name: 'served as is, supported annotations without their notes',
    objects: [nginxClass(), service('web'), ingress({ name: 'web', annotations: { 'proxy-body-size': '8m' } })],
    lines: ['default/web: served as is', '  nginx.ingress.kubernetes.io/proxy-body-size: supported', /^Summary: 1 Ingress: 1 served as is, 0 served with differences, 0 not served; annotations: 1 supported; exit 0$/],
  },
  {
    name: 'not served: the reason on the title line, the annotation says it fails closed, no repeated failure line',
    objects: [nginxClass(), service('admin'), ingress({ name: 'admin', annotations: { 'enable-modsecurity': 'true' } })],
    lines: [
      /^default\/admin: NOT SERVED: nginx\.ingress\.kubernetes\.io\/enable-modsecurity asks for a protection/,
      /^ {2}nginx\.ingress\.kubernetes\.io\/enable-modsecurity: not supported, fails closed — not supported yet: an Ingress asking for it is not served/,
      /; 1 path not served; .*exit 1$/,
    ],
    absent: [/error ProtectionNotSupported/],
  },
  {
    name: 'a path lost to an older Ingress is named with its reason; a missing Service is listed as a warning',
    objects: [
      nginxClass(), service('one'),
      ingress({ name: 'one', host: 'x.test', paths: [{ path: '/a', service: 'one' }], created: '2024-01-01T00:00:00Z' }),
      ingress({ name: 'two', host: 'x.test', paths: [{ path: '/a', service: 'one' }, { path: '/b', service: 'gone' }], created: '2024-02-01T00:00:00Z' }),
    ],
    lines: [
      'default/two: served with differences',
      /^ {2}path x\.test\/a not served: .*already served by .*default\/one/,
      /^ {2}error Conflict \(spec\.rules\[0\]\.http\.paths\[0\]\.path\): /,
      /^ {2}warning ServiceNotFound \(spec\.rules\[0\]\.http\.paths\[1\]\.backend\.service\.name\): Service default\/gone not found/,
    ],
  },
  {
    name: 'a blocked install is said once; the ConfigMap keys are listed; other classes are named',
    objects: [
      nginxClass(), service('web'), ingress({ name: 'web' }), ingress({ name: 'other', className: 'traefik' }),
      configMap({ 'enable-modsecurity': 'true', 'enable-brotli': 'true', 'proxy-body-size': 'huge' }),
    ],
    lines: [
      'The install would serve NOTHING:',
      /^ {2}ConfigMap key enable-modsecurity asks for a protection/,
      'ConfigMap ingress-nginx/ingress-nginx-controller (manifests):',
      /^ {2}enable-modsecurity: not supported, fails closed — /,
      /^ {2}enable-brotli: not supported — not supported \(the data plane has no brotli module/,
      /^ {2}error InvalidConfigMapValue \(ConfigMap ingress-nginx\/ingress-nginx-controller: data\[proxy-body-size\]\)/,
      'default/web: NOT SERVED: the install serves nothing (above)',
      'Left out (other classes): default/other',
      /the install serves nothing; 1 Ingress of another class left out; exit 1$/,
    ],
  },
];

void describe('formatText', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const text = formatText(buildReport(requestOf(row.objects)));
      assert.ok(text.endsWith('\n'));
      const lines = text.split('\n');
      for (const want of row.lines) {
        const found = typeof want === 'string' ? lines.includes(want) : lines.some((line) => want.test(line));
        assert.ok(found, `no line ${String(want)} in:\n${text}`);
      }
      for (const unwanted of row.absent ?? []) assert.doesNotMatch(text, unwanted);
    });
  }
});
