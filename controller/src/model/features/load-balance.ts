// load-balance: the balancing algorithm of a backend. Set per Ingress (and in
// the ConfigMap), applied per Backend: when Ingresses routing to one Service
// port disagree, the oldest Ingress's value wins (model/backends.ts). Dynamic:
// pushed to Lua with the endpoints, so a change is never a reload.

import { unsupported, type Checked } from '../checked.ts';
import type { LoadBalance, LoadBalanceConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseOneOf } from './values.ts';

const ALGORITHMS: readonly LoadBalance[] = ['round_robin', 'ewma'];
/** ingress-nginx's other algorithms: valid there, not implemented here. */
const NOT_IMPLEMENTED: ReadonlySet<string> = new Set(['chash', 'chashsubset', 'sticky_balanced', 'sticky_persistent']);

function parseAlgorithm(raw: string): Checked<LoadBalance> {
  // ingress-nginx trims spaces around the algorithm (ValidateOptions with trimSpace, then normalizeString).
  const value = raw.trim();
  if (NOT_IMPLEMENTED.has(value)) return unsupported(`${value} is not implemented (round_robin or ewma)`);
  return parseOneOf(value, ALGORITHMS);
}

export const loadBalanceFeature = defineFeature({
  name: 'loadBalance',
  title: 'Load balancing',
  doc: 'round_robin or ewma, per backend (the oldest Ingress wins when several route to one Service port).',
  output: { kind: 'lua' },
  defaults: { algorithm: 'round_robin' },
  keys: [
    field<LoadBalanceConfig, 'algorithm'>('algorithm', parseAlgorithm, {
      annotation: { name: 'load-balance', scope: 'location', risk: 'Low' },
      configKey: 'load-balance',
      defaultText: 'round_robin',
      doc: 'round_robin or ewma.',
      difference: 'chash and sticky are refused (upstream-hash-by and affinity choose those); EWMA learns response times only in the locations rendered while their backend used EWMA (a switch to it takes effect at once, its response-time feedback with the next reload)',
    }),
  ],
  proof: ['controller/src/model/features/load-balance.test.ts', 'controller/src/model/backend-balancing.test.ts', 'lua/pickers.test.ts', 'e2e/upstream-hash.test.ts'],
});
