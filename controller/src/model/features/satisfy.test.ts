// satisfy as ingress-nginx v1.15.1 reads it (annotations/satisfy/main.go: ValidateOptions
// any|all, case-sensitive, trimmed; anything else is ""). What it prints: render/satisfy-render.test.ts;
// how `any` combines allow lists and authentication: e2e/satisfy.test.ts.

import { describe } from 'node:test';
import type { SatisfyConfig } from '../types.ts';
import { satisfyFeature } from './satisfy.ts';
import { testDefaults, testValueRows, type ValueRow } from './testing.ts';

const values: ValueRow<SatisfyConfig>[] = [
  { name: 'any', key: 'satisfy', value: 'any', want: { mode: 'any' } },
  { name: 'all', key: 'satisfy', value: 'all', want: { mode: 'all' } },
  { name: 'any with spaces around (trimmed, as ingress-nginx)', key: 'satisfy', value: ' any ', want: { mode: 'any' } },
  { name: 'ANY (case-sensitive): ignored', key: 'satisfy', value: 'ANY', want: 'ignore' },
  { name: 'some: ignored', key: 'satisfy', value: 'some', want: 'ignore' },
  { name: 'a directive: ignored', key: 'satisfy', value: 'any; allow all', want: 'ignore' },
];

void describe('satisfy: values', () => testValueRows(satisfyFeature, values));
void describe('satisfy: defaults', () => testDefaults(satisfyFeature, { mode: null }));
