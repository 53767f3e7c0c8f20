// ssl-passthrough as ingress-nginx v1.15.1 reads it (annotations/sslpassthrough: a boolean,
// Ingress scope, Low risk). Which hosts it makes passthrough: model/ssl-passthrough.test.ts.

import { describe } from 'node:test';
import type { SslPassthroughConfig } from '../types.ts';
import { sslPassthroughFeature } from './ssl-passthrough.ts';
import { testDefaults, testValueRows, type ValueRow } from './testing.ts';

const key = 'ssl-passthrough';
const values: ValueRow<SslPassthroughConfig>[] = [
  { name: 'true', key, value: 'true', want: { enabled: true } },
  { name: 'false', key, value: 'false', want: { enabled: false } },
  { name: 'not a boolean: ignored (the default), as ingress-nginx reads it as false', key, value: 'yes please', want: 'ignore' },
];

void describe('ssl-passthrough: values', () => testValueRows(sslPassthroughFeature, values));
void describe('ssl-passthrough: defaults', () => testDefaults(sslPassthroughFeature, { enabled: false }));
