// proxy-body-size and the proxy timeouts, as annotations and as the ConfigMap
// keys of the same names (ingress-nginx v1.15.1: internal/ingress/annotations/proxy,
// docs configmap.md). ingress-nginx validates the timeouts as integers and the size
// with ^(?i)\d+[bkmg]?$, and on a refused annotation logs and keeps the ConfigMap's
// value; here a refused annotation fails the Ingress (the keys' `invalid: 'fail'`).

import { describe } from 'node:test';
import type { ProxyConfig } from '../types.ts';
import { proxyFeature } from './proxy.ts';
import { testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

const values: ValueRow<ProxyConfig>[] = [
  { name: 'proxy-body-size 8m', key: 'proxy-body-size', value: '8m', want: { bodySize: '8m' } },
  { name: 'proxy-body-size 0 (unlimited)', key: 'proxy-body-size', value: '0', want: { bodySize: '0' } },
  { name: 'proxy-body-size 1G', key: 'proxy-body-size', value: '1G', want: { bodySize: '1G' } },
  { name: 'proxy-body-size 512k', key: 'proxy-body-size', value: '512k', want: { bodySize: '512k' } },
  { name: 'proxy-body-size in bytes', key: 'proxy-body-size', value: '1048576', want: { bodySize: '1048576' } },
  { name: 'proxy-body-size 8mb', key: 'proxy-body-size', value: '8mb', want: 'fail' },
  // ingress-nginx's regex lets a `b` unit through; NGINX's size parser knows only k, m, g.
  { name: 'proxy-body-size with a b unit', key: 'proxy-body-size', value: '1b', want: 'fail' },
  { name: 'proxy-body-size negative', key: 'proxy-body-size', value: '-1', want: 'fail' },
  { name: 'proxy-body-size decimal', key: 'proxy-body-size', value: '1.5m', want: 'fail' },
  { name: 'proxy-body-size with ;', key: 'proxy-body-size', value: '1m;', want: 'fail' },
  { name: 'proxy-body-size with a space', key: 'proxy-body-size', value: '1 m', want: 'fail' },
  { name: 'proxy-body-size empty', key: 'proxy-body-size', value: '', want: 'fail' },
  { name: 'proxy-body-size of 13 digits', key: 'proxy-body-size', value: '1234567890123', want: 'fail' },
  { name: 'proxy-connect-timeout 10', key: 'proxy-connect-timeout', value: '10', want: { connectTimeout: 10 } },
  { name: 'proxy-connect-timeout 1 (the least)', key: 'proxy-connect-timeout', value: '1', want: { connectTimeout: 1 } },
  { name: 'proxy-read-timeout 120s', key: 'proxy-read-timeout', value: '120s', want: { readTimeout: 120 } },
  { name: 'proxy-send-timeout 3600 (the most)', key: 'proxy-send-timeout', value: '3600', want: { sendTimeout: 3600 } },
  { name: 'proxy-send-timeout 3601', key: 'proxy-send-timeout', value: '3601', want: 'fail' },
  // A documented difference: ingress-nginx accepts any integer.
  { name: 'proxy-read-timeout a day', key: 'proxy-read-timeout', value: '86400', want: 'fail' },
  { name: 'proxy-read-timeout 0', key: 'proxy-read-timeout', value: '0', want: 'fail' },
  { name: 'proxy-read-timeout negative', key: 'proxy-read-timeout', value: '-1', want: 'fail' },
  { name: 'proxy-read-timeout 1m', key: 'proxy-read-timeout', value: '1m', want: 'fail' },
  { name: 'proxy-read-timeout forever', key: 'proxy-read-timeout', value: 'forever', want: 'fail' },
  { name: 'proxy-connect-timeout decimal', key: 'proxy-connect-timeout', value: '1.5', want: 'fail' },
  { name: 'proxy-connect-timeout ms', key: 'proxy-connect-timeout', value: '500ms', want: 'fail' },
  { name: 'proxy-send-timeout empty', key: 'proxy-send-timeout', value: '', want: 'fail' },
  { name: 'proxy-send-timeout with a directive', key: 'proxy-send-timeout', value: '5; return 200', want: 'fail' },
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
  {
    name: 'other features\' annotations leave the proxy config to the ConfigMap',
    configMap: { 'proxy-read-timeout': '300' }, annotations: { 'use-regex': 'true' }, global: { readTimeout: 300 }, want: null,
  },
];

void describe('proxy: values', () => testValueRows(proxyFeature, values));
void describe('proxy: the ConfigMap\'s global value, an Ingress\'s override', () => testOverrideRows(proxyFeature, overrides));
void describe('proxy: defaults', () => testDefaults(proxyFeature, { bodySize: '1m', connectTimeout: 5, readTimeout: 60, sendTimeout: 60 }));
