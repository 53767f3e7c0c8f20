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
  { name: 'log-format-upstream with an unknown variable', key: format, value: '$status $ingress_name', want: 'fail' },
  { name: 'log-format-upstream with a bare $', key: format, value: 'cost $ 5', want: 'fail' },
  { name: 'log-format-upstream with a newline', key: format, value: '$status\n$request', want: 'fail' },
  { name: 'log-format-upstream with a backslash', key: format, value: '$status \\', want: 'fail' },
  { name: 'log-format-upstream not ASCII', key: format, value: '$status é', want: 'fail' },
  { name: 'log-format-upstream blank', key: format, value: '   ', want: 'fail' },
  { name: 'log-format-upstream of 4097 characters', key: format, value: `$status${' '.repeat(4090)}`, want: 'fail' },
  { name: 'log-format-escape-json true', key: 'log-format-escape-json', value: 'true', want: { escapeJson: true } },
  { name: 'log-format-escape-json not a boolean', key: 'log-format-escape-json', value: 'yes please', want: 'fail' },
];

void describe('access log: values', () => testValueRows(accessLogFeature, values));

void describe('access log: the ConfigMap only', () => {
  void it('a JSON format with escape=json', () => {
    const read = readConfigMap({ [format]: '{"status": $status}', 'log-format-escape-json': 'true' });
    assert.deepEqual(read.failures, []);
    assert.deepEqual(read.settings.accessLog, { enabled: true, format: '{"status": $status}', escapeJson: true });
  });

  void it('a refused format names the variable even behind a long value', () => {
    const [failure] = readConfigMap({ [format]: `${'$remote_addr '.repeat(20)}$ingress_name` }).failures;
    assert.match(failure?.message ?? '', /^ConfigMap key log-format-upstream: variable \$ingress_name is not provided/u);
    assert.ok((failure?.message.length ?? 0) <= 200);
  });
});

void describe('access log: defaults', () => testDefaults(accessLogFeature, { enabled: true, format: INGRESS_NGINX_FORMAT, escapeJson: false }));
