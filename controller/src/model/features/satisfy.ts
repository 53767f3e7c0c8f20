// satisfy, as ingress-nginx v1.15.1 reads it (annotations/satisfy): `any` or
// `all` (its validator trims spaces and is case-sensitive); any other value is
// ignored, the location then has NGINX's default (all), and the template
// prints `satisfy <mode>;` only when the annotation gave one. NGINX applies it
// to the access-phase checks of the location: allow / deny lists, basic auth,
// external auth (auth_request), and Lua access handlers.

import { accept, refuse, type Checked } from '../checked.ts';
import type { SatisfyConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';

function parseMode(raw: string): Checked<'any' | 'all'> {
  const value = raw.replace(/^[\t\n\v\f\r \u0085\u00a0]+|[\t\n\v\f\r \u0085\u00a0]+$/gu, '');
  return value === 'any' || value === 'all' ? accept(value) : refuse('expected any or all');
}

export const satisfyFeature = defineFeature({
  name: 'satisfy',
  title: 'Satisfy any / all',
  doc: 'How the access checks of the Ingress\'s paths combine (NGINX\'s satisfy): `any` admits a request that passes the allow '
    + 'list or authentication, `all` (NGINX\'s default) needs every one. An invalid value is ignored with a warning, as in ingress-nginx.',
  output: { kind: 'location', template: 'features/satisfy.njk' },
  defaults: { mode: null },
  keys: [
    field<SatisfyConfig, 'mode'>('mode', parseMode, {
      annotation: { name: 'satisfy', scope: 'location', risk: 'Low' }, defaultText: '', invalid: 'ignore',
      doc: '`any` or `all` (spaces around are ignored).',
    }),
  ],
  proof: ['controller/src/model/features/satisfy.test.ts', 'controller/src/render/satisfy-render.test.ts', 'e2e/satisfy.test.ts'],
});
