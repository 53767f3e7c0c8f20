// limit-* as annotations and ConfigMap keys (ingress-nginx v1.15.1:
// internal/ingress/annotations/ratelimit/main.go and its test, internal/net/ipnet.go,
// config.go's defaults). limit-rps, limit-rpm, limit-connections and limit-allowlist refuse
// the Ingress on a value strconv.Atoi / ParseCIDRs refuses (their parser returns the
// validation error); limit-rate, limit-rate-after and limit-burst-multiplier fall back to
// the default. A value of 0 or below is no limit (the template prints only limits above 0).

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { RateLimitConfig } from '../types.ts';
import { rateLimitFeature } from './rate-limit.ts';
import { parseAnnotations, ingressConfig, testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

const values: ValueRow<RateLimitConfig>[] = [
  { name: 'limit-rps 5', key: 'limit-rps', value: '5', want: { rps: 5 } },
  { name: 'limit-rps 0 (none)', key: 'limit-rps', value: '0', want: { rps: 0 } },
  { name: 'limit-rps negative (none, as ingress-nginx prints nothing)', key: 'limit-rps', value: '-3', want: { rps: 0 } },
  { name: 'limit-rps with a + sign (strconv.Atoi takes it)', key: 'limit-rps', value: '+7', want: { rps: 7 } },
  { name: 'limit-rps 1,000,000 (the most)', key: 'limit-rps', value: '1000000', want: { rps: 1_000_000 } },
  { name: 'limit-rps above the most', key: 'limit-rps', value: '1000001', want: 'unsupported' },
  { name: 'limit-rps a word', key: 'limit-rps', value: 'many', want: 'fail' },
  { name: 'limit-rps decimal', key: 'limit-rps', value: '1.5', want: 'fail' },
  { name: 'limit-rps with a directive', key: 'limit-rps', value: '5; return 200', want: 'fail' },
  { name: 'limit-rps with r/s', key: 'limit-rps', value: '5r/s', want: 'fail' },
  { name: 'limit-rpm 300', key: 'limit-rpm', value: '300', want: { rpm: 300 } },
  { name: 'limit-rpm 60,000,000 (the most)', key: 'limit-rpm', value: '60000000', want: { rpm: 60_000_000 } },
  { name: 'limit-rpm past int64', key: 'limit-rpm', value: '9223372036854775808', want: 'fail' },
  { name: 'limit-rpm the largest int64', key: 'limit-rpm', value: '9223372036854775807', want: 'unsupported' },
  { name: 'limit-connections 2', key: 'limit-connections', value: '2', want: { connections: 2 } },
  { name: 'limit-connections 65535 (NGINX\'s most)', key: 'limit-connections', value: '65535', want: { connections: 65_535 } },
  { name: 'limit-connections 65536 (NGINX refuses it)', key: 'limit-connections', value: '65536', want: 'unsupported' },
  { name: 'limit-connections with a space', key: 'limit-connections', value: ' 2', want: 'fail' },
  { name: 'limit-burst-multiplier 3', key: 'limit-burst-multiplier', value: '3', want: { burstMultiplier: 3 } },
  { name: 'limit-burst-multiplier 0 (burst=0)', key: 'limit-burst-multiplier', value: '0', want: { burstMultiplier: 0 } },
  { name: 'limit-burst-multiplier negative (burst=-5 fails nginx -t)', key: 'limit-burst-multiplier', value: '-1', want: 'unsupported' },
  { name: 'limit-burst-multiplier 1001', key: 'limit-burst-multiplier', value: '1001', want: 'unsupported' },
  { name: 'limit-burst-multiplier a word: the default', key: 'limit-burst-multiplier', value: 'x', want: 'ignore' },
  { name: 'limit-rate 100', key: 'limit-rate', value: '100', want: { rate: 100 } },
  { name: 'limit-rate 0', key: 'limit-rate', value: '0', want: { rate: 0 } },
  { name: 'limit-rate with a unit: the default', key: 'limit-rate', value: '100k', want: 'ignore' },
  { name: 'limit-rate above 2^31 KiB/s', key: 'limit-rate', value: '2147483648', want: 'unsupported' },
  { name: 'limit-rate-after 1024', key: 'limit-rate-after', value: '1024', want: { rateAfter: 1024 } },
  { name: 'limit-rate-after a word: the default', key: 'limit-rate-after', value: 'soon', want: 'ignore' },
  { name: 'limit-allowlist one address', key: 'limit-allowlist', value: '127.0.0.2', want: { allowlist: ['127.0.0.2'] } },
  {
    name: 'limit-allowlist ranges, IPv6, spaces, sorted and canonical', key: 'limit-allowlist', value: '192.168.1.7/16, 2001:DB8::1/32,10.0.0.0/8',
    want: { allowlist: ['10.0.0.0/8', '192.168.0.0/16', '2001:db8::/32'] },
  },
  { name: 'limit-allowlist a host name', key: 'limit-allowlist', value: 'example.com', want: 'fail' },
  { name: 'limit-allowlist a prefix too long', key: 'limit-allowlist', value: '10.0.0.0/33', want: 'fail' },
  { name: 'limit-allowlist an IPv6 zone', key: 'limit-allowlist', value: 'fe80::1%eth0', want: 'fail' },
  { name: 'limit-allowlist a trailing comma', key: 'limit-allowlist', value: '10.0.0.0/8,', want: 'fail' },
  { name: 'limit-allowlist a directive', key: 'limit-allowlist', value: '10.0.0.0/8 1; } server {', want: 'fail' },
  { name: 'limit-whitelist (the old name)', key: 'limit-whitelist', value: '127.0.0.2', want: { allowlist: ['127.0.0.2'] } },
  { name: 'limit-whitelist invalid', key: 'limit-whitelist', value: '300.0.0.1', want: 'fail' },
  { name: 'limit-req-status-code 429', key: 'limit-req-status-code', value: '429', want: { reqStatus: 429 } },
  { name: 'limit-req-status-code 599', key: 'limit-req-status-code', value: '599', want: { reqStatus: 599 } },
  { name: 'limit-req-status-code 200 (NGINX takes 400..599)', key: 'limit-req-status-code', value: '200', want: 'unsupported' },
  { name: 'limit-req-status-code a word', key: 'limit-req-status-code', value: 'busy', want: 'fail' },
  { name: 'limit-conn-status-code 503', key: 'limit-conn-status-code', value: '503', want: { connStatus: 503 } },
  { name: 'limit-conn-status-code 429', key: 'limit-conn-status-code', value: '429', want: { connStatus: 429 } },
  { name: 'limit-conn-status-code 600', key: 'limit-conn-status-code', value: '600', want: 'unsupported' },
];

const overrides: OverrideRow<RateLimitConfig>[] = [
  {
    name: 'the ConfigMap\'s limit-rate applies to an Ingress that sets none',
    configMap: { 'limit-rate': '64', 'limit-rate-after': '512' }, annotations: {}, global: { rate: 64, rateAfter: 512 }, want: null,
  },
  {
    name: 'limit-rps keeps the ConfigMap\'s limit-rate and statuses',
    configMap: { 'limit-rate': '64', 'limit-req-status-code': '429' }, annotations: { 'limit-rps': '10' },
    global: { rate: 64, reqStatus: 429 }, want: { rps: 10 },
  },
  {
    name: 'limit-rate 0 on the Ingress lifts the ConfigMap\'s',
    configMap: { 'limit-rate': '64' }, annotations: { 'limit-rate': '0' }, global: { rate: 64 }, want: { rate: 0 },
  },
  {
    name: 'an invalid limit-rate is ignored: the ConfigMap\'s applies',
    configMap: { 'limit-rate': '64' }, annotations: { 'limit-rate': 'fast', 'limit-rps': '1' }, global: { rate: 64 }, want: { rps: 1 }, ignored: ['limit-rate'],
  },
];

void describe('rate limits: values', () => testValueRows(rateLimitFeature, values));
void describe('rate limits: the ConfigMap\'s global value, an Ingress\'s override', () => testOverrideRows(rateLimitFeature, overrides));
void describe('rate limits: defaults', () => testDefaults(rateLimitFeature, {
  rps: 0, rpm: 0, connections: 0, burstMultiplier: 5, rate: 0, rateAfter: 0, allowlist: [], reqStatus: 503, connStatus: 503,
}));

void describe('rate limits: limit-allowlist and its alias', () => {
  const rows: { name: string; annotations: Record<string, string>; want: readonly string[] | 'fail' }[] = [
    { name: 'limit-allowlist wins over limit-whitelist', annotations: { 'limit-allowlist': '10.0.0.1', 'limit-whitelist': '10.0.0.2' }, want: ['10.0.0.1'] },
    { name: 'an invalid limit-whitelist is not read when limit-allowlist is set', annotations: { 'limit-allowlist': '10.0.0.1', 'limit-whitelist': 'x' }, want: ['10.0.0.1'] },
    { name: 'limit-whitelist alone', annotations: { 'limit-whitelist': '10.0.0.2' }, want: ['10.0.0.2'] },
    { name: 'an empty limit-allowlist leaves limit-whitelist', annotations: { 'limit-allowlist': '', 'limit-whitelist': '10.0.0.2' }, want: ['10.0.0.2'] },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const parsed = parseAnnotations({ 'limit-rps': '1', ...row.annotations });
      if (row.want === 'fail') {
        assert.equal(parsed.ok, false);
        return;
      }
      assert.equal(parsed.ok, true, JSON.stringify(parsed));
      assert.deepEqual(ingressConfig(parsed, 'rateLimit')?.allowlist, row.want);
    });
  }
});
