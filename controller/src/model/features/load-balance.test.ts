// load-balance (ingress-nginx v1.15.1: internal/ingress/annotations/loadbalancing and
// its test, and the ConfigMap key of the same name). ingress-nginx validates it against its
// six algorithms (case-sensitive, spaces trimmed) and, unlike most of its annotations,
// refuses the Ingress on an invalid value: the same here. An empty value is never
// validated there and gives the default: ignored here, with a warning. Only round_robin
// and ewma are implemented: ingress-nginx's chash, chashsubset and sticky_* are
// unsupported and refuse the Ingress.

import { describe } from 'node:test';
import type { LoadBalanceConfig } from '../types.ts';
import { loadBalanceFeature } from './load-balance.ts';
import { testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

const key = 'load-balance';

const values: ValueRow<LoadBalanceConfig>[] = [
  { name: 'ewma', key, value: 'ewma', want: { algorithm: 'ewma' } },
  { name: 'round_robin', key, value: 'round_robin', want: { algorithm: 'round_robin' } },
  { name: 'spaces around it are trimmed', key, value: ' ewma ', want: { algorithm: 'ewma' } },
  { name: 'chash: not implemented', key, value: 'chash', want: 'unsupported' },
  { name: 'chashsubset: not implemented', key, value: 'chashsubset', want: 'unsupported' },
  { name: 'sticky_balanced: not implemented', key, value: 'sticky_balanced', want: 'unsupported' },
  { name: 'sticky_persistent: not implemented', key, value: 'sticky_persistent', want: 'unsupported' },
  { name: 'ip_hash (ingress-nginx\'s TestParse: invalid)', key, value: 'ip_hash', want: 'fail' },
  { name: 'EWMA (case-sensitive)', key, value: 'EWMA', want: 'fail' },
  { name: 'spaces only (trimmed to nothing, then validated)', key, value: ' ', want: 'fail' },
  { name: 'round-robin (misspelt)', key, value: 'round-robin', want: 'fail' },
  { name: 'chash with spaces around it', key, value: ' chash ', want: 'unsupported' },
  { name: 'empty (ingress-nginx validates no empty value)', key, value: '', want: 'ignore' },
  { name: 'with a directive', key, value: 'ewma; return 200', want: 'fail' },
];

const overrides: OverrideRow<LoadBalanceConfig>[] = [
  { name: 'no annotation: the ConfigMap\'s algorithm applies', configMap: { [key]: 'ewma' }, annotations: {}, global: { algorithm: 'ewma' }, want: null },
  {
    name: 'the annotation beats the ConfigMap',
    configMap: { [key]: 'ewma' }, annotations: { [key]: 'round_robin' }, global: { algorithm: 'ewma' }, want: { algorithm: 'round_robin' },
  },
  { name: 'ewma for one Ingress only', configMap: {}, annotations: { [key]: 'ewma' }, global: {}, want: { algorithm: 'ewma' } },
  { name: 'empty: the ConfigMap\'s algorithm applies', configMap: { [key]: 'ewma' }, annotations: { [key]: '' }, global: { algorithm: 'ewma' }, want: {}, ignored: [key] },
];

void describe('load-balance: values', () => testValueRows(loadBalanceFeature, values));
void describe('load-balance: the ConfigMap\'s global value, an Ingress\'s override', () => testOverrideRows(loadBalanceFeature, overrides));
void describe('load-balance: defaults', () => testDefaults(loadBalanceFeature, { algorithm: 'round_robin' }));
