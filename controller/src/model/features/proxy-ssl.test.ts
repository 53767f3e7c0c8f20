// proxy-ssl-* (ingress-nginx v1.15.1: internal/ingress/annotations/proxyssl and
// its test and e2e test): annotations only. A bad Secret reference refuses the
// Ingress (its parser returns the error); the other keys fall back to their
// defaults (DEFAULT, TLSv1.2, off, 1) with a warning. Protocols are sorted and
// deduplicated as its sortProtocols does; a depth of 0 is its default (1).
// Values ingress-nginx takes that NGINX would refuse are unsupported.

import { describe } from 'node:test';
import type { ProxySslConfig } from '../types.ts';
import { proxySslFeature } from './proxy-ssl.ts';
import { testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

const DEFAULTS: ProxySslConfig = { secret: null, verify: false, verifyDepth: 1, name: null, serverName: null, protocols: ['TLSv1.2'], ciphers: 'DEFAULT' };

const values: ValueRow<ProxySslConfig>[] = [
  { name: 'secret namespace/name', key: 'proxy-ssl-secret', value: 'default/backend-ca', want: { secret: 'default/backend-ca' } },
  { name: 'secret with spaces around it', key: 'proxy-ssl-secret', value: ' default/backend-ca ', want: { secret: 'default/backend-ca' } },
  { name: 'secret without a namespace (ingress-nginx\'s ParseNameNS refuses it)', key: 'proxy-ssl-secret', value: 'backend-ca', want: 'unsupported' },
  { name: 'secret with upper case (no Kubernetes name)', key: 'proxy-ssl-secret', value: 'Default/CA', want: 'unsupported' },
  { name: 'secret with a quote', key: 'proxy-ssl-secret', value: 'default/"ca', want: 'fail' },
  { name: 'secret with a directive', key: 'proxy-ssl-secret', value: 'default/ca; return 200', want: 'fail' },
  { name: 'verify on', key: 'proxy-ssl-verify', value: 'on', want: { verify: true } },
  { name: 'verify off', key: 'proxy-ssl-verify', value: 'off', want: { verify: false } },
  { name: 'verify true (not on/off)', key: 'proxy-ssl-verify', value: 'true', want: 'ignore' },
  { name: 'verify ON (case matters in ingress-nginx)', key: 'proxy-ssl-verify', value: 'ON', want: 'ignore' },
  { name: 'depth 2', key: 'proxy-ssl-verify-depth', value: '2', want: { verifyDepth: 2 } },
  { name: 'depth 0 is the default', key: 'proxy-ssl-verify-depth', value: '0', want: { verifyDepth: 1 } },
  { name: 'depth 100', key: 'proxy-ssl-verify-depth', value: '100', want: { verifyDepth: 100 } },
  { name: 'depth 101: NGINX takes it, but no chain is that long', key: 'proxy-ssl-verify-depth', value: '101', want: 'unsupported' },
  { name: 'depth -1: ingress-nginx takes it, NGINX does not', key: 'proxy-ssl-verify-depth', value: '-1', want: 'unsupported' },
  { name: 'depth not a number', key: 'proxy-ssl-verify-depth', value: 'two', want: 'ignore' },
  { name: 'name: a host name', key: 'proxy-ssl-name', value: 'backend.internal', want: { name: 'backend.internal' } },
  { name: 'name: upper case is lowered', key: 'proxy-ssl-name', value: 'Backend.Internal', want: { name: 'backend.internal' } },
  { name: 'name: $host', key: 'proxy-ssl-name', value: '$host', want: { name: '$host' } },
  { name: 'name: $proxy_host', key: 'proxy-ssl-name', value: '$proxy_host', want: { name: '$proxy_host' } },
  { name: 'name: another variable (ingress-nginx takes it)', key: 'proxy-ssl-name', value: '$request_uri', want: 'unsupported' },
  { name: 'name: a regex-like value (ingress-nginx takes it)', key: 'proxy-ssl-name', value: '*.internal', want: 'unsupported' },
  { name: 'name: a quote', key: 'proxy-ssl-name', value: 'a"b', want: 'ignore' },
  { name: 'name: a directive', key: 'proxy-ssl-name', value: 'a; return 200', want: 'ignore' },
  { name: 'server name on', key: 'proxy-ssl-server-name', value: 'on', want: { serverName: true } },
  { name: 'server name off', key: 'proxy-ssl-server-name', value: 'off', want: { serverName: false } },
  { name: 'server name yes', key: 'proxy-ssl-server-name', value: 'yes', want: 'ignore' },
  { name: 'protocols sorted (ingress-nginx\'s sortProtocols)', key: 'proxy-ssl-protocols', value: 'TLSv1.3 TLSv1.2', want: { protocols: ['TLSv1.2', 'TLSv1.3'] } },
  { name: 'protocols deduplicated, spaces dropped', key: 'proxy-ssl-protocols', value: ' TLSv1.3  TLSv1.3 ', want: { protocols: ['TLSv1.3'] } },
  { name: 'protocols: TLSv1.1 is not allowed', key: 'proxy-ssl-protocols', value: 'TLSv1.1 TLSv1.2', want: 'ignore' },
  { name: 'protocols: lower case', key: 'proxy-ssl-protocols', value: 'tlsv1.2', want: 'ignore' },
  { name: 'ciphers', key: 'proxy-ssl-ciphers', value: 'HIGH:!AES', want: { ciphers: 'HIGH:!AES' } },
  { name: 'ciphers with spaces (removed, as ingress-nginx validates them)', key: 'proxy-ssl-ciphers', value: 'HIGH: !aNULL', want: { ciphers: 'HIGH:!aNULL' } },
  { name: 'ciphers with @STRENGTH (not in ingress-nginx\'s grammar)', key: 'proxy-ssl-ciphers', value: 'HIGH:@STRENGTH', want: 'ignore' },
  { name: 'ciphers with a quote', key: 'proxy-ssl-ciphers', value: 'HIGH"', want: 'ignore' },
];

const overrides: OverrideRow<ProxySslConfig>[] = [
  { name: 'no annotation: none', configMap: {}, annotations: {}, global: {}, want: null },
  {
    name: 'ingress-nginx\'s e2e: secret, verify on, depth 2, server name on',
    configMap: {},
    annotations: { 'proxy-ssl-secret': 'default/app', 'proxy-ssl-verify': 'on', 'proxy-ssl-verify-depth': '2', 'proxy-ssl-server-name': 'on' },
    global: {},
    want: { secret: 'default/app', verify: true, verifyDepth: 2, serverName: true },
  },
  {
    name: 'bad ciphers and protocols fall back to DEFAULT and TLSv1.2 with warnings',
    configMap: {},
    annotations: { 'proxy-ssl-secret': 'default/app', 'proxy-ssl-ciphers': 'HIGH;', 'proxy-ssl-protocols': 'SSLv3' },
    global: {},
    want: { secret: 'default/app' },
    ignored: ['proxy-ssl-protocols', 'proxy-ssl-ciphers'],
  },
];

void describe('proxy-ssl: values', () => testValueRows(proxySslFeature, values));
void describe('proxy-ssl: per Ingress', () => testOverrideRows(proxySslFeature, overrides));
void describe('proxy-ssl: defaults', () => testDefaults(proxySslFeature, DEFAULTS));
