// backend-protocol: how a location speaks to its backend. HTTP and HTTPS
// today; ingress-nginx's other protocols refuse the Ingress rather than
// proxying them as plain HTTP (a gRPC backend answered over HTTP/1 would
// fail every request in a way that is hard to trace back).

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { BackendProtocolConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';

/** Protocols ingress-nginx knows but this controller does not proxy yet. */
const UNSUPPORTED_PROTOCOLS = new Set(['GRPC', 'GRPCS', 'AUTO_HTTP', 'FCGI']);

function parseProtocol(value: string): Checked<'HTTP' | 'HTTPS'> {
  // ingress-nginx trims spaces around the protocol too (its validator and its parser).
  const upper = value.trim().toUpperCase();
  if (upper === 'HTTP' || upper === 'HTTPS') return accept(upper);
  if (UNSUPPORTED_PROTOCOLS.has(upper)) return unsupported(`backend protocol ${upper} is not supported yet (HTTP or HTTPS)`);
  return refuse('expected HTTP or HTTPS');
}

export const backendProtocolFeature = defineFeature({
  name: 'backendProtocol',
  title: 'Backend protocol',
  doc: 'HTTP or HTTPS (case-insensitive) to the backend; HTTPS sends the request host as SNI.',
  output: { kind: 'location', template: 'features/backend-protocol.njk' },
  defaults: { protocol: 'HTTP' },
  keys: [
    field<BackendProtocolConfig, 'protocol'>('protocol', parseProtocol, {
      annotation: { name: 'backend-protocol', scope: 'location', risk: 'Low' },
      defaultText: 'HTTP',
      doc: 'HTTP or HTTPS; another word is ignored with a warning (HTTP), as in ingress-nginx.',
      invalid: 'ignore',
      difference: 'GRPC, GRPCS, AUTO_HTTP and FCGI refuse the Ingress (it is not served) until they are supported',
    }),
  ],
  proof: ['controller/src/model/features/backend-protocol.test.ts', 'controller/src/render/render-config.test.ts'],
});
