import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { DEFAULT_ANNOTATION_VALUES, parseIngressAnnotations, type AnnotationValues } from './index.ts';

const PREFIX = 'nginx.ingress.kubernetes.io';
const REF = { namespace: 'default', name: 'app' };

interface ValueRow {
  readonly name: string;
  readonly key: string;
  readonly value: unknown;
  /** The fields the value sets, or null when refused. */
  readonly want: Partial<AnnotationValues> | null;
}

const rows: ValueRow[] = [
  { name: 'rewrite-target plain', key: 'rewrite-target', value: '/', want: { rewriteTarget: '/' } },
  { name: 'rewrite-target with captures', key: 'rewrite-target', value: '/api/$1/$2?x=1', want: { rewriteTarget: '/api/$1/$2?x=1' } },
  { name: 'rewrite-target starting with a capture', key: 'rewrite-target', value: '$1', want: { rewriteTarget: '$1' } },
  { name: 'rewrite-target with a variable', key: 'rewrite-target', value: '/$host', want: null },
  { name: 'rewrite-target with $0', key: 'rewrite-target', value: '/$0', want: null },
  { name: 'rewrite-target with ${1}', key: 'rewrite-target', value: '/${1}', want: null },
  { name: 'rewrite-target with a space', key: 'rewrite-target', value: '/a b', want: null },
  { name: 'rewrite-target with ; and directive', key: 'rewrite-target', value: '/; return 200', want: null },
  { name: 'rewrite-target with a newline', key: 'rewrite-target', value: '/\nreturn 200;', want: null },
  { name: 'rewrite-target with a quote', key: 'rewrite-target', value: '/"', want: null },
  { name: 'rewrite-target with a brace', key: 'rewrite-target', value: '/}', want: null },
  { name: 'rewrite-target with a backslash', key: 'rewrite-target', value: '/\\', want: null },
  { name: 'rewrite-target relative', key: 'rewrite-target', value: 'foo', want: null },
  { name: 'rewrite-target empty', key: 'rewrite-target', value: '', want: null },
  { name: 'use-regex true', key: 'use-regex', value: 'true', want: { useRegex: true } },
  { name: 'use-regex False', key: 'use-regex', value: 'False', want: { useRegex: false } },
  { name: 'use-regex yes', key: 'use-regex', value: 'yes', want: null },
  { name: 'proxy-body-size 8m', key: 'proxy-body-size', value: '8m', want: { bodySize: '8m' } },
  { name: 'proxy-body-size 0 (unlimited)', key: 'proxy-body-size', value: '0', want: { bodySize: '0' } },
  { name: 'proxy-body-size 1G', key: 'proxy-body-size', value: '1G', want: { bodySize: '1G' } },
  { name: 'proxy-body-size 8mb', key: 'proxy-body-size', value: '8mb', want: null },
  { name: 'proxy-body-size negative', key: 'proxy-body-size', value: '-1', want: null },
  { name: 'proxy-body-size with ;', key: 'proxy-body-size', value: '1m;', want: null },
  { name: 'proxy-connect-timeout 10', key: 'proxy-connect-timeout', value: '10', want: { connectTimeout: 10 } },
  { name: 'proxy-read-timeout 120s', key: 'proxy-read-timeout', value: '120s', want: { readTimeout: 120 } },
  { name: 'proxy-send-timeout 3600', key: 'proxy-send-timeout', value: '3600', want: { sendTimeout: 3600 } },
  { name: 'proxy-send-timeout 3601', key: 'proxy-send-timeout', value: '3601', want: null },
  { name: 'proxy-read-timeout 0', key: 'proxy-read-timeout', value: '0', want: null },
  { name: 'proxy-read-timeout 1m', key: 'proxy-read-timeout', value: '1m', want: null },
  { name: 'proxy-connect-timeout decimal', key: 'proxy-connect-timeout', value: '1.5', want: null },
  { name: 'load-balance ewma', key: 'load-balance', value: 'ewma', want: { loadBalance: 'ewma' } },
  { name: 'load-balance round_robin', key: 'load-balance', value: 'round_robin', want: { loadBalance: 'round_robin' } },
  { name: 'load-balance chash', key: 'load-balance', value: 'chash', want: null },
  { name: 'backend-protocol https (case-insensitive)', key: 'backend-protocol', value: 'https', want: { protocol: 'HTTPS' } },
  { name: 'backend-protocol HTTP', key: 'backend-protocol', value: 'HTTP', want: { protocol: 'HTTP' } },
  { name: 'backend-protocol GRPC unsupported', key: 'backend-protocol', value: 'GRPC', want: null },
  { name: 'backend-protocol nonsense', key: 'backend-protocol', value: 'ftp', want: null },
  { name: 'value not a string', key: 'use-regex', value: true, want: null },
];

void describe('annotation values', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const fullKey = `${PREFIX}/${row.key}`;
      const result = parseIngressAnnotations({ [fullKey]: row.value }, PREFIX, REF);
      if (row.want === null) {
        assert.equal(result.ok, false);
        if (result.ok) return;
        assert.equal(result.failures.length, 1);
        const [failure] = result.failures;
        assert.equal(failure?.reason, 'InvalidAnnotation');
        assert.equal(failure?.field, `metadata.annotations[${fullKey}]`);
        assert.deepEqual(failure?.ingress, REF);
        assert.doesNotMatch(failure?.message ?? '', /[\n\r]/);
        assert.ok((failure?.message.length ?? 0) <= 200);
      } else {
        assert.deepEqual(result, { ok: true, values: { ...DEFAULT_ANNOTATION_VALUES, ...row.want } });
      }
    });
  }
});

void describe('annotation framework', () => {
  const cases: { name: string; annotations: Record<string, unknown> | undefined; prefix?: string; want: string[] | 'ok' }[] = [
    { name: 'no annotations: defaults', annotations: undefined, want: 'ok' },
    { name: 'unknown key under the prefix is ignored', annotations: { [`${PREFIX}/enable-cors`]: 'true' }, want: 'ok' },
    { name: 'other prefixes are ignored', annotations: { 'example.com/proxy-body-size': 'garbage;' }, want: 'ok' },
    { name: 'configuration-snippet refused', annotations: { [`${PREFIX}/configuration-snippet`]: 'return 200;' }, want: ['SnippetNotAllowed'] },
    { name: 'server-snippet refused even when empty', annotations: { [`${PREFIX}/server-snippet`]: '' }, want: ['SnippetNotAllowed'] },
    { name: 'any *-snippet refused', annotations: { [`${PREFIX}/future-snippet`]: 'x' }, want: ['SnippetNotAllowed'] },
    {
      name: 'every failure reported, in key order',
      annotations: { [`${PREFIX}/use-regex`]: 'maybe', [`${PREFIX}/auth-snippet`]: 'x', [`${PREFIX}/load-balance`]: 'x' },
      want: ['SnippetNotAllowed', 'InvalidAnnotation', 'InvalidAnnotation'],
    },
    { name: 'custom prefix is honoured', annotations: { 'resty.example/proxy-body-size': 'bad' }, prefix: 'resty.example', want: ['InvalidAnnotation'] },
    { name: 'custom prefix ignores the default one', annotations: { [`${PREFIX}/proxy-body-size`]: 'bad' }, prefix: 'resty.example', want: 'ok' },
  ];
  for (const row of cases) {
    void it(row.name, () => {
      const result = parseIngressAnnotations(row.annotations, row.prefix ?? PREFIX, REF);
      if (row.want === 'ok') assert.deepEqual(result, { ok: true, values: DEFAULT_ANNOTATION_VALUES });
      else assert.deepEqual(result.ok ? 'ok' : result.failures.map((failure) => failure.reason), row.want);
    });
  }

  void it('a long hostile value is truncated and quoted in the message', () => {
    const value = `1m;\n${'x'.repeat(500)}`;
    const result = parseIngressAnnotations({ [`${PREFIX}/proxy-body-size`]: value }, PREFIX, REF);
    assert.equal(result.ok, false);
    const message = result.ok ? '' : (result.failures[0]?.message ?? '');
    assert.ok(message.includes('"1m;\\nxxx'), message);
    assert.ok(message.length <= 200);
    assert.doesNotMatch(message, /\n/);
  });
});
