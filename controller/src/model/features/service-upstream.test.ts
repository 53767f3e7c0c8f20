// service-upstream, as the annotation and the ConfigMap key of the same name
// (ingress-nginx v1.15.1: internal/ingress/annotations/serviceupstream, ValidateBool,
// and its e2e test: ConfigMap on, annotation off). The builder's use of it (ClusterIP,
// headless, oldest wins) is in ../service-upstream.test.ts.

import { describe } from 'node:test';
import type { ServiceUpstreamConfig } from '../types.ts';
import { serviceUpstreamFeature } from './service-upstream.ts';
import { testDefaults, testOverrideRows, testValueRows, type OverrideRow, type ValueRow } from './testing.ts';

const key = 'service-upstream';

const values: ValueRow<ServiceUpstreamConfig>[] = [
  { name: 'true', key, value: 'true', want: { enabled: true } },
  { name: 'True (strconv.ParseBool)', key, value: 'True', want: { enabled: true } },
  { name: '1', key, value: '1', want: { enabled: true } },
  { name: 'false', key, value: 'false', want: { enabled: false } },
  { name: 'yes (not a Go boolean)', key, value: 'yes', want: 'ignore' },
  { name: 'a space around it', key, value: ' true', want: 'ignore' },
  { name: 'empty', key, value: '', want: 'ignore' },
];

const overrides: OverrideRow<ServiceUpstreamConfig>[] = [
  { name: 'the ConfigMap turns it on for every Ingress', configMap: { [key]: 'true' }, annotations: {}, global: { enabled: true }, want: null },
  {
    name: 'the annotation turns it off for one Ingress (ingress-nginx\'s e2e test)',
    configMap: { [key]: 'true' }, annotations: { [key]: 'false' }, global: { enabled: true }, want: { enabled: false },
  },
  { name: 'on for one Ingress only', configMap: {}, annotations: { [key]: 'true' }, global: {}, want: { enabled: true } },
  {
    name: 'an invalid annotation: the ConfigMap\'s value applies',
    configMap: { [key]: 'true' }, annotations: { [key]: 'on' }, global: { enabled: true }, want: {}, ignored: [key],
  },
];

void describe('service-upstream: values', () => testValueRows(serviceUpstreamFeature, values));
void describe('service-upstream: the ConfigMap\'s global value, an Ingress\'s override', () => testOverrideRows(serviceUpstreamFeature, overrides));
void describe('service-upstream: defaults', () => testDefaults(serviceUpstreamFeature, { enabled: false }));
