// The client-address ConfigMap keys (ingress-nginx v1.15.1: config.go's defaults,
// template/configmap.go: proxy-real-ip-cidr split on commas and trimmed, 0.0.0.0/0
// when absent; proxy-protocol-header-timeout read with time.ParseDuration). No
// annotation sets any of them. A refused value keeps the default with a failure,
// except proxy-real-ip-cidr, whose default trusts every IPv4 peer: it serves no Ingress.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { ClientAddressSettings } from '../types.ts';
import { clientAddressFeature, parseDuration, parseHeaderName } from './client-address.ts';
import { configField, described, readConfigMap, testDefaults, testValueRows, type ValueRow } from './testing.ts';

const values: ValueRow<ClientAddressSettings>[] = [
  { name: 'use-forwarded-headers true', key: 'use-forwarded-headers', value: 'true', want: { useForwardedHeaders: true } },
  { name: 'use-forwarded-headers in ParseBool\'s spelling 1', key: 'use-forwarded-headers', value: '1', want: { useForwardedHeaders: true } },
  { name: 'use-forwarded-headers yes', key: 'use-forwarded-headers', value: 'yes', want: 'fail' },
  { name: 'forwarded-for-header X-Real-IP', key: 'forwarded-for-header', value: 'X-Real-IP', want: { forwardedForHeader: 'X-Real-IP' } },
  { name: 'forwarded-for-header CF-Connecting-IP', key: 'forwarded-for-header', value: 'CF-Connecting-IP', want: { forwardedForHeader: 'CF-Connecting-IP' } },
  { name: 'forwarded-for-header with a space', key: 'forwarded-for-header', value: 'X-Forwarded For', want: 'fail' },
  { name: 'forwarded-for-header with ; and a directive', key: 'forwarded-for-header', value: 'X-A; deny all', want: 'fail' },
  { name: 'forwarded-for-header with a quote', key: 'forwarded-for-header', value: 'X-"A', want: 'fail' },
  { name: 'forwarded-for-header with a $', key: 'forwarded-for-header', value: 'X-$host', want: 'fail' },
  { name: 'forwarded-for-header with a newline', key: 'forwarded-for-header', value: 'X-A\nB', want: 'fail' },
  // A token, but not a name for realip and $http_…: proxy_protocol would switch realip to the PROXY header.
  { name: 'forwarded-for-header proxy_protocol (underscore)', key: 'forwarded-for-header', value: 'proxy_protocol', want: 'fail' },
  { name: 'forwarded-for-header of 65 characters', key: 'forwarded-for-header', value: `X${'a'.repeat(64)}`, want: 'fail' },
  { name: 'forwarded-for-header empty', key: 'forwarded-for-header', value: '', want: 'fail' },
  { name: 'forwarded-host-header X-Host', key: 'forwarded-host-header', value: 'X-Host', want: { forwardedHostHeader: 'X-Host' } },
  { name: 'forwarded-host-header with }', key: 'forwarded-host-header', value: 'X-Host}', want: 'fail' },
  { name: 'compute-full-forwarded-for true', key: 'compute-full-forwarded-for', value: 'true', want: { computeFullForwardedFor: true } },
  { name: 'compute-full-forwarded-for on', key: 'compute-full-forwarded-for', value: 'on', want: 'fail' },
  { name: 'enable-real-ip true', key: 'enable-real-ip', value: 'true', want: { enableRealIp: true } },
  { name: 'enable-real-ip T', key: 'enable-real-ip', value: 'T', want: { enableRealIp: true } },
  { name: 'proxy-real-ip-cidr one range', key: 'proxy-real-ip-cidr', value: '10.0.0.0/8', want: { realIpFrom: ['10.0.0.0/8'] } },
  { name: 'proxy-real-ip-cidr a list, spaces, IPv6, host bits', key: 'proxy-real-ip-cidr', value: ' 192.168.1.7/16, 2001:DB8::1/32,127.0.0.1 ',
    want: { realIpFrom: ['127.0.0.1', '192.168.0.0/16', '2001:db8::/32'] } },
  { name: 'proxy-real-ip-cidr empty items dropped', key: 'proxy-real-ip-cidr', value: '10.0.0.0/8,,', want: { realIpFrom: ['10.0.0.0/8'] } },
  { name: 'proxy-real-ip-cidr empty: no peer trusted', key: 'proxy-real-ip-cidr', value: '', want: { realIpFrom: [] } },
  { name: 'proxy-real-ip-cidr not an address', key: 'proxy-real-ip-cidr', value: '10.0.0.0/8,example.com', want: 'fail' },
  { name: 'proxy-real-ip-cidr prefix too long', key: 'proxy-real-ip-cidr', value: '10.0.0.0/33', want: 'fail' },
  { name: 'proxy-real-ip-cidr with a directive', key: 'proxy-real-ip-cidr', value: '10.0.0.0/8; allow all', want: 'fail' },
  { name: 'proxy-real-ip-cidr unix:', key: 'proxy-real-ip-cidr', value: 'unix:', want: 'fail' },
  { name: 'use-proxy-protocol true', key: 'use-proxy-protocol', value: 'true', want: { useProxyProtocol: true } },
  { name: 'use-proxy-protocol enabled', key: 'use-proxy-protocol', value: 'enabled', want: 'fail' },
  { name: 'proxy-protocol-header-timeout 10s', key: 'proxy-protocol-header-timeout', value: '10s', want: { proxyProtocolHeaderTimeoutMs: 10_000 } },
  { name: 'proxy-protocol-header-timeout 1m30s', key: 'proxy-protocol-header-timeout', value: '1m30s', want: { proxyProtocolHeaderTimeoutMs: 90_000 } },
  { name: 'proxy-protocol-header-timeout 1.5s', key: 'proxy-protocol-header-timeout', value: '1.5s', want: { proxyProtocolHeaderTimeoutMs: 1500 } },
  { name: 'proxy-protocol-header-timeout 0', key: 'proxy-protocol-header-timeout', value: '0', want: { proxyProtocolHeaderTimeoutMs: 0 } },
  { name: 'proxy-protocol-header-timeout without a unit', key: 'proxy-protocol-header-timeout', value: '5', want: 'fail' },
  { name: 'proxy-protocol-header-timeout negative', key: 'proxy-protocol-header-timeout', value: '-5s', want: 'fail' },
  { name: 'proxy-protocol-header-timeout past a day', key: 'proxy-protocol-header-timeout', value: '25h', want: 'fail' },
  { name: 'proxy-protocol-header-timeout with trailing text', key: 'proxy-protocol-header-timeout', value: '5s;', want: 'fail' },
  { name: 'proxy-add-original-uri-header true', key: 'proxy-add-original-uri-header', value: 'true', want: { addOriginalUri: true } },
  { name: 'proxy-add-original-uri-header 2', key: 'proxy-add-original-uri-header', value: '2', want: 'fail' },
  { name: 'generate-request-id false', key: 'generate-request-id', value: 'false', want: { generateRequestId: false } },
  { name: 'generate-request-id off', key: 'generate-request-id', value: 'off', want: 'fail' },
];

void describe('client address: values', () => testValueRows(clientAddressFeature, values));

void describe('client address: keys together', () => {
  void it('forwarded headers with a trusted range, a header and the full chain', () => {
    const read = readConfigMap({ 'use-forwarded-headers': 'true', 'proxy-real-ip-cidr': '10.0.0.0/8', 'forwarded-for-header': 'X-Client-IP', 'compute-full-forwarded-for': 'true' });
    assert.deepEqual(read.failures, []);
    assert.equal(read.closed, false);
    assert.deepEqual(read.settings.clientAddress, {
      ...clientAddressFeature.defaults, useForwardedHeaders: true, realIpFrom: ['10.0.0.0/8'], forwardedForHeader: 'X-Client-IP', computeFullForwardedFor: true,
    });
  });

  void it('use-forwarded-headers with use-proxy-protocol: refused aloud, the defaults stay', () => {
    const read = readConfigMap({ 'use-forwarded-headers': 'true', 'use-proxy-protocol': 'true', 'generate-request-id': 'false' });
    assert.deepEqual(described(read.failures), [`InvalidConfigMapValue ConfigMap ingress/resty-ingress: data[generate-request-id]`]);
    assert.match(read.failures[0]?.message ?? '', /use-forwarded-headers and use-proxy-protocol together are not supported/u);
    assert.deepEqual(read.settings.clientAddress, clientAddressFeature.defaults);
  });

  void it('an invalid proxy-real-ip-cidr serves no Ingress even with the other keys valid', () => {
    const read = readConfigMap({ 'use-forwarded-headers': 'true', 'proxy-real-ip-cidr': '10.0.0.0/8,nope' });
    assert.equal(read.closed, true);
    assert.deepEqual(described(read.failures), [`InvalidConfigMapValue ${configField('proxy-real-ip-cidr')}`]);
  });
});

void describe('client address: the grammars', () => {
  const headers: [string, string, 'ok' | 'refused' | 'unsupported'][] = [
    ['a usual name', 'X-Forwarded-For', 'ok'],
    ['digits after the first letter', 'X1-Client', 'ok'],
    ['starts with a digit (a token, not a name here)', '1X', 'unsupported'],
    ['a dot (a token)', 'X.Client', 'unsupported'],
    ['a colon (no token)', 'X:Client', 'refused'],
    ['a NUL byte', 'X\u0000', 'refused'],
  ];
  for (const [name, raw, want] of headers) {
    void it(`header name: ${name}`, () => {
      const parsed = parseHeaderName(raw);
      assert.equal(parsed.ok ? 'ok' : parsed.unsupported === true ? 'unsupported' : 'refused', want);
    });
  }
  const durations: [string, string, number | null][] = [
    ['milliseconds', '500ms', 500], ['hours and minutes', '1h2m', 3_720_000], ['microseconds round', '1500us', 2],
    ['a leading dot', '.5s', 500], ['a unit alone', 's', null], ['upper case unit', '5S', null], ['a space', '5 s', null],
  ];
  for (const [name, raw, want] of durations) {
    void it(`duration: ${name}`, () => {
      const parsed = parseDuration(raw);
      assert.deepEqual(parsed.ok ? parsed.value : null, want);
    });
  }
});

void describe('client address: defaults', () => testDefaults(clientAddressFeature, {
  useForwardedHeaders: false, forwardedForHeader: 'X-Forwarded-For', forwardedHostHeader: 'X-Forwarded-Host',
  computeFullForwardedFor: false, enableRealIp: false, realIpFrom: ['0.0.0.0/0'], useProxyProtocol: false,
  proxyProtocolHeaderTimeoutMs: 5000, addOriginalUri: false, generateRequestId: true,
}));
