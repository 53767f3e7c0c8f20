// allow-cross-namespace-resources (ingress-nginx v1.15.1's ConfigMap key, a
// boolean, default false): a ConfigMap key only, read with Go's ParseBool
// spellings; a bad value keeps false. What it allows: model/backend-tls.test.ts
// and model/fastcgi-params.test.ts.

import { describe } from 'node:test';
import type { CrossNamespaceSettings } from '../types.ts';
import { crossNamespaceFeature } from './cross-namespace.ts';
import { testDefaults, testValueRows, type ValueRow } from './testing.ts';

const key = 'allow-cross-namespace-resources';

const values: ValueRow<CrossNamespaceSettings>[] = [
  { name: 'true', key, value: 'true', want: { allow: true } },
  { name: 'false', key, value: 'false', want: { allow: false } },
  { name: 'ParseBool spelling', key, value: 'T', want: { allow: true } },
  { name: 'spaces around it', key, value: ' true ', want: { allow: true } },
  { name: 'yes is no boolean', key, value: 'yes', want: 'fail' },
];

void describe('allow-cross-namespace-resources: values', () => testValueRows(crossNamespaceFeature, values));
void describe('allow-cross-namespace-resources: defaults', () => testDefaults(crossNamespaceFeature, { allow: false }));
