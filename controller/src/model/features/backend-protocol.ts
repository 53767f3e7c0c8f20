// backend-protocol: how a location speaks to its backend, with ingress-nginx
// v1.15.1's six protocols. Every one goes through the one balancer upstream
// (Lua picks the endpoint); only the module that speaks to it changes:
// proxy_pass http(s):// (AUTO_HTTP: the client's own scheme), grpc_pass
// grpc(s):// (HTTP/2 to the backend; the listeners speak HTTP/2 too, http.njk),
// fastcgi_pass (with the fastcgi feature's index and params).

import { accept, refuse, type Checked } from '../checked.ts';
import type { BackendProtocol, BackendProtocolConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';

const PROTOCOLS: readonly BackendProtocol[] = ['HTTP', 'HTTPS', 'AUTO_HTTP', 'GRPC', 'GRPCS', 'FCGI'];

function parseProtocol(value: string): Checked<BackendProtocol> {
  // ingress-nginx trims spaces around the protocol and matches it case-insensitively (its validator and its parser).
  const upper = value.trim().toUpperCase();
  const found = PROTOCOLS.find((protocol) => protocol === upper);
  return found === undefined ? refuse(`expected one of ${PROTOCOLS.join(', ')}`) : accept(found);
}

export const backendProtocolFeature = defineFeature({
  name: 'backendProtocol',
  title: 'Backend protocol',
  doc: 'HTTP, HTTPS, AUTO_HTTP (the client\'s scheme), GRPC, GRPCS or FCGI (case-insensitive) to the backend. '
    + 'HTTPS and GRPCS send the request host as SNI unless proxy-ssl-* says otherwise. gRPC needs HTTP/2 from the client: '
    + 'every listener speaks it (TLS by ALPN, plain HTTP by prior knowledge), as ingress-nginx\'s `http2 on` does.',
  output: { kind: 'location', template: 'features/backend-protocol.njk' },
  defaults: { protocol: 'HTTP' },
  keys: [
    field<BackendProtocolConfig, 'protocol'>('protocol', parseProtocol, {
      annotation: { name: 'backend-protocol', scope: 'location', risk: 'Low' },
      defaultText: 'HTTP',
      doc: 'HTTP, HTTPS, AUTO_HTTP, GRPC, GRPCS or FCGI; another word is ignored with a warning (HTTP), as in ingress-nginx.',
      invalid: 'ignore',
      difference: 'GRPC and FCGI locations get the grpc_*/fastcgi_* forms of the proxy timeouts and headers (ingress-nginx leaves FastCGI at NGINX\'s defaults)',
    }),
  ],
  proof: [
    'controller/src/model/features/backend-protocol.test.ts',
    'controller/src/render/backend-protocol-render.test.ts',
    'e2e/backend-protocols.test.ts',
  ],
});
