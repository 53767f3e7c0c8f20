// service-upstream: the backend's one endpoint is the Service's ClusterIP and
// port (kube-proxy balances behind it) instead of the Pods of its
// EndpointSlices. Dynamic, as in ingress-nginx: it only changes the endpoints
// Lua holds, so turning it on or off never reloads. Applied per backend: when
// Ingresses routing to one Service port disagree, the oldest Ingress's value
// wins (model/backends.ts); a Service without a ClusterIP (headless) keeps its
// EndpointSlices' endpoints (model/service-upstream.ts).

import type { ServiceUpstreamConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseBoolean } from './values.ts';

export const serviceUpstreamFeature = defineFeature({
  name: 'serviceUpstream',
  title: 'Service upstream',
  doc: 'Proxy to the Service\'s ClusterIP and port instead of its endpoints: one endpoint, so no retry on another Pod '
    + '(proxy-next-upstream has nothing to retry on) and no EWMA. It needs no EndpointSlices. A headless Service keeps its '
    + 'endpoints (with a warning); an ExternalName Service is not supported either way. The annotation and the ConfigMap key '
    + 'both apply without a reload.',
  output: { kind: 'lua' },
  defaults: { enabled: false },
  keys: [
    field<ServiceUpstreamConfig, 'enabled'>('enabled', parseBoolean, {
      annotation: { name: 'service-upstream', scope: 'ingress', risk: 'Low' },
      configKey: 'service-upstream',
      defaultText: 'false',
      doc: 'true: the backend\'s one endpoint is the Service\'s ClusterIP and port.',
      difference: 'an invalid annotation value is ignored with a warning and the ConfigMap\'s value applies (ingress-nginx reads it as false)',
      invalid: 'ignore',
    }),
  ],
  proof: ['controller/src/model/features/service-upstream.test.ts', 'controller/src/model/service-upstream.test.ts', 'e2e/upstream-selection.test.ts'],
});
