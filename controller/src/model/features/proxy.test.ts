// proxy-body-size and the proxy timeouts, as annotations and as the ConfigMap
// keys of the same names (ingress-nginx v1.15.1: internal/ingress/annotations/proxy
// and its test, parser/validators.go, docs configmap.md). ingress-nginx validates the
// timeouts with strconv.Atoi and the size with ^(?i)\d+[bkmg]?$, and on an invalid
// annotation keeps the ConfigMap's value: the same here (the keys' `invalid: 'ignore'`),
// with a warning. A value ingress-nginx takes that NGINX or this controller cannot
// honour (a timeout below 1 s or above a week, a `b` unit, 13 digits) is unsupported:
// the Ingress is not served.

import { describe } from 'node:test';
import type { ProxyConfig } from '../types.ts';
import { proxyFeature } from './proxy.ts';
import { testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

const body = 'proxy-body-size';
const connect = 'proxy-connect-timeout';
const read = 'proxy-read-timeout';
const send = 'proxy-send-timeout';

const values: ValueRow<ProxyConfig>[] = [
  { name: 'proxy-body-size 8m', key: body, value: '8m', want: { bodySize: '8m' } },
  { name: 'proxy-body-size 2k (ingress-nginx\'s TestProxy)', key: body, value: '2k', want: { bodySize: '2k' } },
  { name: 'proxy-body-size 0 (unlimited)', key: body, value: '0', want: { bodySize: '0' } },
  { name: 'proxy-body-size 1G', key: body, value: '1G', want: { bodySize: '1G' } },
  { name: 'proxy-body-size 512k', key: body, value: '512k', want: { bodySize: '512k' } },
  { name: 'proxy-body-size in bytes', key: body, value: '1048576', want: { bodySize: '1048576' } },
  { name: 'proxy-body-size of 12 digits (the most)', key: body, value: '999999999999', want: { bodySize: '999999999999' } },
  // ingress-nginx validates the size without its spaces (ValidateRegex(SizeRegex, true)) and uses it trimmed.
  { name: 'proxy-body-size with spaces around it', key: body, value: ' 8m ', want: { bodySize: '8m' } },
  // ingress-nginx's regex lets these through; NGINX's size parser knows only k, m, g (and overflows past 12 digits).
  { name: 'proxy-body-size with a b unit', key: body, value: '1b', want: 'unsupported' },
  { name: 'proxy-body-size with a B unit', key: body, value: '1B', want: 'unsupported' },
  { name: 'proxy-body-size of 13 digits', key: body, value: '1234567890123', want: 'unsupported' },
  // client_max_body_size is an off_t: NGINX refuses more than (2^63 - 1) / 2^30 gigabytes, which
  // ingress-nginx's regex lets through (and nginx -t then fails for every Ingress).
  { name: 'proxy-body-size 8589934591g (NGINX\'s largest)', key: body, value: '8589934591g', want: { bodySize: '8589934591g' } },
  { name: 'proxy-body-size 8589934592g (overflows NGINX)', key: body, value: '8589934592g', want: 'unsupported' },
  { name: 'proxy-body-size 999999999999G (12 digits, overflows NGINX)', key: body, value: '999999999999G', want: 'unsupported' },
  { name: 'proxy-body-size 999999999999m (12 digits, within NGINX)', key: body, value: '999999999999m', want: { bodySize: '999999999999m' } },
  // ingress-nginx validates "8m" and writes "client_max_body_size 8 m;", which NGINX refuses.
  { name: 'proxy-body-size with a space inside', key: body, value: '8 m', want: 'unsupported' },
  // Invalid for ingress-nginx too: ignored, the default applies.
  { name: 'proxy-body-size 8mb', key: body, value: '8mb', want: 'ignore' },
  { name: 'proxy-body-size negative', key: body, value: '-1', want: 'ignore' },
  { name: 'proxy-body-size decimal', key: body, value: '1.5m', want: 'ignore' },
  { name: 'proxy-body-size a word', key: body, value: 'big', want: 'ignore' },
  { name: 'proxy-body-size a unit alone', key: body, value: 'm', want: 'ignore' },
  { name: 'proxy-body-size with ;', key: body, value: '1m;', want: 'ignore' },
  { name: 'proxy-body-size with a tab', key: body, value: '\t8m', want: 'ignore' },
  { name: 'proxy-body-size with a newline', key: body, value: '1m\n', want: 'ignore' },
  { name: 'proxy-body-size empty', key: body, value: '', want: 'ignore' },
  { name: 'proxy-connect-timeout 10', key: connect, value: '10', want: { connectTimeout: 10 } },
  { name: 'proxy-connect-timeout 1 (the least)', key: connect, value: '1', want: { connectTimeout: 1 } },
  { name: 'proxy-send-timeout 2 (ingress-nginx\'s TestProxy)', key: send, value: '2', want: { sendTimeout: 2 } },
  { name: 'proxy-read-timeout 3 (ingress-nginx\'s TestProxy)', key: read, value: '3', want: { readTimeout: 3 } },
  { name: 'proxy-read-timeout with leading zeros', key: read, value: '007', want: { readTimeout: 7 } },
  { name: 'proxy-read-timeout with a + sign (strconv.Atoi takes it)', key: read, value: '+5', want: { readTimeout: 5 } },
  { name: 'proxy-read-timeout 120s', key: read, value: '120s', want: { readTimeout: 120 } },
  { name: 'proxy-send-timeout 3601 (past the old hour)', key: send, value: '3601', want: { sendTimeout: 3601 } },
  { name: 'proxy-read-timeout a day (websockets)', key: read, value: '86400', want: { readTimeout: 86_400 } },
  { name: 'proxy-send-timeout a week (the most)', key: send, value: '604800', want: { sendTimeout: 604_800 } },
  // Integers ingress-nginx takes (it takes any) that are no timeout NGINX should wait: a documented difference.
  { name: 'proxy-send-timeout a week and a second', key: send, value: '604801', want: 'unsupported' },
  { name: 'proxy-read-timeout 0', key: read, value: '0', want: 'unsupported' },
  { name: 'proxy-read-timeout negative', key: read, value: '-1', want: 'unsupported' },
  { name: 'proxy-connect-timeout negative', key: connect, value: '-30', want: 'unsupported' },
  { name: 'proxy-read-timeout of 16 digits', key: read, value: '1000000000000000', want: 'unsupported' },
  { name: 'proxy-read-timeout the largest int64', key: read, value: '9223372036854775807', want: 'unsupported' },
  // Not an integer for strconv.Atoi: ignored, the default applies.
  { name: 'proxy-read-timeout 1m', key: read, value: '1m', want: 'ignore' },
  { name: 'proxy-read-timeout forever', key: read, value: 'forever', want: 'ignore' },
  { name: 'proxy-read-timeout with a space', key: read, value: ' 60', want: 'ignore' },
  { name: 'proxy-read-timeout past int64', key: read, value: '9223372036854775808', want: 'ignore' },
  // Our "s" is not ingress-nginx's: out of range with it, the value is one ingress-nginx ignores.
  { name: 'proxy-read-timeout 0s', key: read, value: '0s', want: 'ignore' },
  { name: 'proxy-read-timeout -5s', key: read, value: '-5s', want: 'ignore' },
  { name: 'proxy-send-timeout a week and a second, in s', key: send, value: '604801s', want: 'ignore' },
  { name: 'proxy-connect-timeout decimal', key: connect, value: '1.5', want: 'ignore' },
  { name: 'proxy-connect-timeout ms', key: connect, value: '500ms', want: 'ignore' },
  { name: 'proxy-send-timeout empty', key: send, value: '', want: 'ignore' },
  { name: 'proxy-send-timeout with a directive', key: send, value: '5; return 200', want: 'ignore' },
];

const overrides: OverrideRow<ProxyConfig>[] = [
  {
    name: 'no annotation: the Ingress carries no proxy config, the ConfigMap\'s applies',
    configMap: { 'proxy-body-size': '16m' }, annotations: {}, global: { bodySize: '16m' }, want: null,
  },
  {
    name: 'the ConfigMap sets every timeout',
    configMap: { 'proxy-connect-timeout': '2', 'proxy-read-timeout': '120', 'proxy-send-timeout': '30' }, annotations: {},
    global: { connectTimeout: 2, readTimeout: 120, sendTimeout: 30 }, want: null,
  },
  {
    name: 'an annotation beats the ConfigMap',
    configMap: { 'proxy-body-size': '16m' }, annotations: { 'proxy-body-size': '2m' }, global: { bodySize: '16m' }, want: { bodySize: '2m' },
  },
  {
    name: 'an annotation on one key keeps the ConfigMap\'s other keys',
    configMap: { 'proxy-read-timeout': '120', 'proxy-connect-timeout': '2' }, annotations: { 'proxy-send-timeout': '30' },
    global: { readTimeout: 120, connectTimeout: 2 }, want: { sendTimeout: 30 },
  },
  {
    name: 'an annotation equal to the global value is still the Ingress\'s own',
    configMap: { 'proxy-body-size': '8m' }, annotations: { 'proxy-body-size': '8m' }, global: { bodySize: '8m' }, want: {},
  },
  // ingress-nginx's parser: an invalid annotation falls back to the ConfigMap's value (GetDefaultBackend).
  {
    name: 'an invalid annotation is ignored: the ConfigMap\'s value applies',
    configMap: { [read]: '120' }, annotations: { [read]: 'forever' }, global: { readTimeout: 120 }, want: {}, ignored: [read],
  },
  {
    name: 'an ignored annotation beside a valid one',
    configMap: { [body]: '16m' }, annotations: { [body]: 'huge', [send]: '30' }, global: { bodySize: '16m' }, want: { sendTimeout: 30 }, ignored: [body],
  },
  {
    name: 'other features\' annotations leave the proxy config to the ConfigMap',
    configMap: { 'proxy-read-timeout': '300' }, annotations: { 'use-regex': 'true' }, global: { readTimeout: 300 }, want: null,
  },
];

void describe('proxy: values', () => testValueRows(proxyFeature, values));
void describe('proxy: the ConfigMap\'s global value, an Ingress\'s override', () => testOverrideRows(proxyFeature, overrides));
void describe('proxy: defaults', () => testDefaults(proxyFeature, { bodySize: '1m', connectTimeout: 5, readTimeout: 60, sendTimeout: 60 }));
