// The access log's ConfigMap keys (ingress-nginx v1.15.1: docs configmap.md):
// disable-access-log, log-format-upstream, log-format-escape-json. No annotation sets
// them. The format is checked by model/log-format.ts (log-format.test.ts has its
// grammar); these rows show what reaches the settings. A refused value keeps the
// default with a failure.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { AccessLogSettings } from '../types.ts';
import { accessLogFeature } from './access-log.ts';
import { readConfigMap, testDefaults, testValueRows, type ValueRow } from './testing.ts';

const INGRESS_NGINX_FORMAT = '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" '
  + '"$http_user_agent" $request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr '
  + '$upstream_response_length $upstream_response_time $upstream_status $req_id';
const format = 'log-format-upstream';

const values: ValueRow<AccessLogSettings>[] = [
  { name: 'disable-access-log true', key: 'disable-access-log', value: 'true', want: { enabled: false } },
  { name: 'disable-access-log false', key: 'disable-access-log', value: 'false', want: { enabled: true } },
  { name: 'disable-access-log yes', key: 'disable-access-log', value: 'yes', want: 'fail' },
  { name: 'log-format-upstream JSON', key: format, value: '{"status": $status}', want: { format: '{"status": $status}' } },
  { name: 'log-format-upstream plain', key: format, value: '$remote_addr $status $request_time', want: { format: '$remote_addr $status $request_time' } },
  { name: 'log-format-upstream ingress-nginx\'s own', key: format, value: INGRESS_NGINX_FORMAT, want: { format: INGRESS_NGINX_FORMAT } },
  { name: 'log-format-upstream with a quote and a directive', key: format, value: '$status\'; access_log /etc/passwd; \'', want: 'fail' },
  { name: 'log-format-upstream with an unknown variable', key: format, value: '$status $location_path', want: 'fail' },
  { name: 'log-format-upstream with ingress-nginx\'s per-location names', key: format, value: '$namespace/$ingress_name $service_name:$service_port', want: { format: '$namespace/$ingress_name $service_name:$service_port' } },
  { name: 'log-format-upstream with a bare $', key: format, value: 'cost $ 5', want: 'fail' },
  { name: 'log-format-upstream with a newline', key: format, value: '$status\n$request', want: 'fail' },
  { name: 'log-format-upstream with a backslash', key: format, value: '$status \\', want: 'fail' },
  { name: 'log-format-upstream not ASCII', key: format, value: '$status é', want: 'fail' },
  { name: 'log-format-upstream blank', key: format, value: '   ', want: 'fail' },
  { name: 'log-format-upstream of 4097 characters', key: format, value: `$status${' '.repeat(4090)}`, want: 'fail' },
  { name: 'log-format-escape-json true', key: 'log-format-escape-json', value: 'true', want: { escapeJson: true } },
  { name: 'log-format-escape-json not a boolean', key: 'log-format-escape-json', value: 'yes please', want: 'fail' },
  { name: 'log-format-escape-none true', key: 'log-format-escape-none', value: 'true', want: { escapeNone: true } },
  { name: 'log-format-escape-none not a boolean', key: 'log-format-escape-none', value: 'none', want: 'fail' },
  { name: 'skip-access-log-urls one', key: 'skip-access-log-urls', value: '/healthz', want: { skipUrls: ['/healthz'] } },
  { name: 'skip-access-log-urls several, trimmed, duplicates once', key: 'skip-access-log-urls', value: ' /healthz, /metrics?x=1 ,/healthz,', want: { skipUrls: ['/healthz', '/metrics?x=1'] } },
  { name: 'skip-access-log-urls empty items only', key: 'skip-access-log-urls', value: ' , ', want: { skipUrls: [] } },
  { name: 'skip-access-log-urls a regex', key: 'skip-access-log-urls', value: '~^/health', want: 'fail' },
  { name: 'skip-access-log-urls a map keyword', key: 'skip-access-log-urls', value: 'default', want: 'fail' },
  { name: 'skip-access-log-urls a quote and a directive', key: 'skip-access-log-urls', value: '/a"; access_log /tmp/x; "', want: 'fail' },
  { name: 'skip-access-log-urls a variable', key: 'skip-access-log-urls', value: '/$uri', want: 'fail' },
  { name: 'skip-access-log-urls a space', key: 'skip-access-log-urls', value: '/a b', want: 'fail' },
  { name: 'skip-access-log-urls 101 items', key: 'skip-access-log-urls', value: Array.from({ length: 101 }, (_, i) => `/p${i}`).join(','), want: 'fail' },
  { name: 'access-log-path ingress-nginx\'s default', key: 'access-log-path', value: '/var/log/nginx/access.log', want: { path: 'prefix' } },
  { name: 'access-log-path another file (unsupported)', key: 'access-log-path', value: '/var/log/other.log', want: 'unsupported' },
  { name: 'access-log-path stdout (unsupported)', key: 'access-log-path', value: '/dev/stdout', want: 'unsupported' },
  { name: 'access-log-path relative', key: 'access-log-path', value: 'access.log', want: 'fail' },
  { name: 'error-log-level warn', key: 'error-log-level', value: 'warn', want: { errorLogLevel: 'warn' } },
  { name: 'error-log-level debug', key: 'error-log-level', value: 'debug', want: { errorLogLevel: 'debug' } },
  { name: 'error-log-level upper case', key: 'error-log-level', value: 'WARN', want: 'fail' },
  { name: 'error-log-level with a directive', key: 'error-log-level', value: 'warn; daemon on', want: 'fail' },
];

void describe('access log: values', () => testValueRows(accessLogFeature, values));

void describe('access log: the ConfigMap only', () => {
  void it('a JSON format with escape=json', () => {
    const read = readConfigMap({ [format]: '{"status": $status}', 'log-format-escape-json': 'true' });
    assert.deepEqual(read.failures, []);
    assert.deepEqual(read.settings.accessLog, { ...accessLogFeature.defaults, format: '{"status": $status}', escapeJson: true });
  });

  void it('a refused format names the variable even behind a long value', () => {
    const [failure] = readConfigMap({ [format]: `${'$remote_addr '.repeat(20)}$location_path` }).failures;
    assert.match(failure?.message ?? '', /^ConfigMap key log-format-upstream: variable \$location_path is not provided/u);
    assert.ok((failure?.message.length ?? 0) <= 200);
  });
});

void describe('access log: defaults', () => testDefaults(accessLogFeature, {
  enabled: true, format: INGRESS_NGINX_FORMAT, escapeJson: false, escapeNone: false, skipUrls: [], path: 'prefix', errorLogLevel: 'notice',
}));
