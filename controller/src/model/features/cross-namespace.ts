// allow-cross-namespace-resources (ConfigMap only): whether an annotation may
// name a Secret or ConfigMap of another namespace than its Ingress's
// (auth-secret, auth-tls-secret, proxy-ssl-secret, fastcgi-params-configmap,
// auth-proxy-set-headers here). Off by default, as in
// ingress-nginx v1.15.1: a tenant must not read another tenant's Secret
// through the ingress controller's rights.

import type { CrossNamespaceSettings } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseBoolean } from './values.ts';

export const crossNamespaceFeature = defineFeature({
  name: 'crossNamespace',
  title: 'Cross-namespace references',
  doc: 'Whether auth-secret, auth-tls-secret, proxy-ssl-secret, fastcgi-params-configmap and auth-proxy-set-headers may name an object of another '
    + 'namespace than the Ingress\'s. Off: such an Ingress gets a failure and its paths answer 503 (auth-secret, proxy-ssl-secret, auth-proxy-set-headers), '
    + 'its host 403 (auth-tls-secret), or it is not served (fastcgi-params-configmap).',
  output: { kind: 'global' },
  defaults: { allow: false },
  keys: [
    field<CrossNamespaceSettings, 'allow'>('allow', (raw) => parseBoolean(raw.trim()), {
      configKey: 'allow-cross-namespace-resources',
      defaultText: 'false',
      doc: 'true lets annotations name Secrets and ConfigMaps of other namespaces (the controller must be allowed to read them).',
    }),
  ],
  proof: ['controller/src/model/features/cross-namespace.test.ts', 'controller/src/model/backend-tls.test.ts', 'controller/src/model/fastcgi-params.test.ts',
    'controller/src/model/auth-proxy-headers.test.ts', 'controller/src/model/credentials.test.ts', 'controller/src/model/client-auth.test.ts'],
});
