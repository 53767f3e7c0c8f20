// load-balance: the balancing algorithm of a backend. Set per Ingress (and in
// the ConfigMap), applied per Backend: when Ingresses routing to one Service
// port disagree, the oldest Ingress's value wins (model/backends.ts).

import type { LoadBalance, LoadBalanceConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseOneOf } from './values.ts';

const ALGORITHMS: readonly LoadBalance[] = ['round_robin', 'ewma'];

export const loadBalanceFeature = defineFeature({
  name: 'loadBalance',
  title: 'Load balancing',
  doc: 'round_robin or ewma, per backend (the oldest Ingress wins when several route to one Service port).',
  output: { kind: 'location', template: null },
  defaults: { algorithm: 'round_robin' },
  keys: [
    // ingress-nginx trims spaces around the algorithm (ValidateOptions with trimSpace, then normalizeString).
    field<LoadBalanceConfig, 'algorithm'>('algorithm', (value) => parseOneOf(value.trim(), ALGORITHMS), {
      annotation: { name: 'load-balance', scope: 'location', risk: 'Low' },
      configKey: 'load-balance',
      defaultText: 'round_robin',
      doc: 'round_robin or ewma.',
      difference: 'changing it reloads (EWMA adds a Lua log phase to its locations; round robin pays none); chash and sticky are refused',
    }),
  ],
  proof: ['controller/src/model/features/load-balance.test.ts', 'lua/pickers.test.ts'],
});
