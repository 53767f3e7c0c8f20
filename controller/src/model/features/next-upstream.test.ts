// proxy-next-upstream, -timeout and -tries, as annotations and as the ConfigMap keys
// of the same names (ingress-nginx v1.15.1: internal/ingress/annotations/proxy, its
// validUpstreamAnnotation regex and ValidateInt; buildNextUpstream in the template
// helpers; the defaults "error timeout", 0 and 3 in config.go). ingress-nginx keeps the
// ConfigMap's value on an invalid annotation: the same here, with a warning. Values its
// validator lets through that NGINX refuses (words that touch, negative integers) are
// unsupported: the Ingress is not served.

import { describe } from 'node:test';
import type { NextUpstreamConfig } from '../types.ts';
import { nextUpstreamFeature } from './next-upstream.ts';
import { testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

const list = 'proxy-next-upstream';
const timeout = 'proxy-next-upstream-timeout';
const tries = 'proxy-next-upstream-tries';

const values: ValueRow<NextUpstreamConfig>[] = [
  { name: 'one condition', key: list, value: 'error', want: { conditions: ['error'] } },
  { name: 'ingress-nginx\'s own example', key: list, value: 'error timeout http_502', want: { conditions: ['error', 'timeout', 'http_502'] } },
  { name: 'every status condition', key: list, value: 'http_500 http_502 http_503 http_504 http_403 http_404 http_429',
    want: { conditions: ['http_500', 'http_502', 'http_503', 'http_504', 'http_403', 'http_404', 'http_429'] } },
  { name: 'non_idempotent (POSTs retried too)', key: list, value: 'error timeout non_idempotent', want: { conditions: ['error', 'timeout', 'non_idempotent'] } },
  { name: 'invalid_header', key: list, value: 'invalid_header', want: { conditions: ['invalid_header'] } },
  { name: 'off', key: list, value: 'off', want: { conditions: ['off'] } },
  { name: 'off beside others: off alone, as NGINX reads it', key: list, value: 'error off', want: { conditions: ['off'] } },
  { name: 'a repeated word is kept once (NGINX warns on repeats)', key: list, value: 'error error timeout', want: { conditions: ['error', 'timeout'] } },
  { name: 'a trailing space (the regex allows one)', key: list, value: 'error timeout ', want: { conditions: ['error', 'timeout'] } },
  { name: 'a tab between words (Go\'s \\s)', key: list, value: 'error\ttimeout', want: { conditions: ['error', 'timeout'] } },
  { name: 'words that touch pass ingress-nginx\'s regex, NGINX refuses them', key: list, value: 'errortimeout', want: 'unsupported' },
  { name: 'an unknown word', key: list, value: 'error http_418', want: 'ignore' },
  { name: 'upper case', key: list, value: 'ERROR', want: 'ignore' },
  { name: 'two spaces between words', key: list, value: 'error  timeout', want: 'ignore' },
  { name: 'a leading space', key: list, value: ' error', want: 'ignore' },
  { name: 'commas', key: list, value: 'error,timeout', want: 'ignore' },
  { name: 'a newline', key: list, value: 'error\ntimeout', want: 'ignore' },
  { name: 'a directive', key: list, value: 'error; return 200', want: 'ignore' },
  { name: 'empty', key: list, value: '', want: 'ignore' },
  { name: 'timeout 10', key: timeout, value: '10', want: { timeout: 10 } },
  { name: 'timeout 0 (no limit)', key: timeout, value: '0', want: { timeout: 0 } },
  { name: 'timeout 30s', key: timeout, value: '30s', want: { timeout: 30 } },
  { name: 'timeout a week (the most)', key: timeout, value: '604800', want: { timeout: 604_800 } },
  { name: 'timeout negative (NGINX refuses it)', key: timeout, value: '-1', want: 'unsupported' },
  { name: 'timeout a week and a second', key: timeout, value: '604801', want: 'unsupported' },
  { name: 'timeout 1m', key: timeout, value: '1m', want: 'ignore' },
  { name: 'timeout decimal', key: timeout, value: '1.5', want: 'ignore' },
  { name: 'timeout empty', key: timeout, value: '', want: 'ignore' },
  { name: 'tries 1 (no retry)', key: tries, value: '1', want: { tries: 1 } },
  { name: 'tries 5', key: tries, value: '5', want: { tries: 5 } },
  { name: 'tries 0 (each endpoint once)', key: tries, value: '0', want: { tries: 0 } },
  { name: 'tries with a + sign (strconv.Atoi takes it)', key: tries, value: '+2', want: { tries: 2 } },
  { name: 'tries 100 (the most)', key: tries, value: '100', want: { tries: 100 } },
  { name: 'tries 101', key: tries, value: '101', want: 'unsupported' },
  { name: 'tries negative (NGINX refuses it)', key: tries, value: '-1', want: 'unsupported' },
  { name: 'tries 3s', key: tries, value: '3s', want: 'ignore' },
  { name: 'tries a word', key: tries, value: 'many', want: 'ignore' },
  { name: 'tries empty', key: tries, value: '', want: 'ignore' },
];

const overrides: OverrideRow<NextUpstreamConfig>[] = [
  {
    name: 'no annotation: the ConfigMap\'s values apply',
    configMap: { [list]: 'error timeout http_503', [tries]: '2', [timeout]: '5' }, annotations: {},
    global: { conditions: ['error', 'timeout', 'http_503'], tries: 2, timeout: 5 }, want: null,
  },
  {
    name: 'an annotation on one key keeps the ConfigMap\'s other keys',
    configMap: { [list]: 'error timeout http_503', [tries]: '2' }, annotations: { [tries]: '1' },
    global: { conditions: ['error', 'timeout', 'http_503'], tries: 2 }, want: { tries: 1 },
  },
  {
    name: 'an invalid annotation is ignored: the ConfigMap\'s value applies',
    configMap: { [list]: 'off' }, annotations: { [list]: 'sometimes' }, global: { conditions: ['off'] }, want: {}, ignored: [list],
  },
];

void describe('next-upstream: values', () => testValueRows(nextUpstreamFeature, values));
void describe('next-upstream: the ConfigMap\'s global value, an Ingress\'s override', () => testOverrideRows(nextUpstreamFeature, overrides));
void describe('next-upstream: defaults', () => testDefaults(nextUpstreamFeature, { conditions: ['error', 'timeout'], timeout: 0, tries: 3 }));
