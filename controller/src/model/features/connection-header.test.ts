// connection-proxy-header (ingress-nginx v1.15.1 annotations/connection: ^(close|keep-alive)$ on the
// value without spaces, the parser returning its validation error, which refuses the Ingress). An
// annotation only: no ConfigMap key of that name exists (the helper checks it is not read there).

import { describe } from 'node:test';
import type { ConnectionHeaderConfig } from '../types.ts';
import { connectionHeaderFeature } from './connection-header.ts';
import { testDefaults, testValueRows, type ValueRow } from './testing.ts';

const key = 'connection-proxy-header';

const values: ValueRow<ConnectionHeaderConfig>[] = [
  { name: 'close', key, value: 'close', want: { header: 'close' } },
  { name: 'keep-alive', key, value: 'keep-alive', want: { header: 'keep-alive' } },
  { name: 'close with spaces around', key, value: ' close ', want: { header: 'close' } },
  { name: 'a space inside (ingress-nginx validates without it, prints it)', key, value: 'clo se', want: 'unsupported' },
  { name: 'upgrade', key, value: 'upgrade', want: 'fail' },
  { name: 'Close (case-sensitive)', key, value: 'Close', want: 'fail' },
  { name: 'with a directive', key, value: 'close; return 200', want: 'fail' },
  { name: 'with a newline', key, value: 'close\nx', want: 'fail' },
];

void describe('connection header: values', () => testValueRows(connectionHeaderFeature, values));
void describe('connection header: defaults', () => testDefaults(connectionHeaderFeature, { header: null }));
