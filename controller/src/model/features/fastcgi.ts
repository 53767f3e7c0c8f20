// fastcgi-index and fastcgi-params-configmap (ingress-nginx v1.15.1:
// internal/ingress/annotations/fastcgi): what a location with backend-protocol
// FCGI hands its FastCGI responder. The index is a file name; the params come
// from a ConfigMap in the Ingress's own namespace, each key a parameter name
// and each value checked strictly (model/fastcgi-params.ts) before it can reach
// nginx.conf. Printed only for FCGI locations (features/fastcgi.njk). The
// params are read per build from the ConfigMap (model/fastcgi-params.ts),
// which the controller watches by name once an Ingress names it.

import { accept, refuse, type Checked } from '../checked.ts';
import type { FastcgiConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseObjectReference } from './object-ref.ts';

/** ingress-nginx's regexValidIndexAnnotationAndKey: one file name. */
const INDEX = /^[A-Za-z0-9._-]{1,255}$/u;

function parseIndex(raw: string): Checked<string | null> {
  // ingress-nginx validates the value without its spaces; a space inside is then refused by nginx -t.
  const value = raw.trim();
  return INDEX.test(value) ? accept(value) : refuse('expected a file name of letters, digits, ".", "_" and "-"');
}

export const fastcgiFeature = defineFeature({
  name: 'fastcgi',
  title: 'FastCGI',
  doc: 'The index file and extra parameters of a location with backend-protocol FCGI. The parameters come from a ConfigMap '
    + 'in the Ingress\'s namespace (data: parameter name → value); a missing ConfigMap or a bad key or value leaves the Ingress unserved.',
  output: { kind: 'location', template: 'features/fastcgi.njk' },
  defaults: { index: null, paramsConfigMap: null, params: null },
  keys: [
    field<FastcgiConfig, 'index'>('index', parseIndex, {
      annotation: { name: 'fastcgi-index', scope: 'location', risk: 'Medium' },
      defaultText: '',
      doc: 'fastcgi_index: the file name a URI ending in "/" gets appended (e.g. index.php).',
    }),
    field<FastcgiConfig, 'paramsConfigMap'>('paramsConfigMap', (raw) => parseObjectReference(raw, true), {
      annotation: { name: 'fastcgi-params-configmap', scope: 'location', risk: 'Medium' },
      defaultText: '',
      doc: 'A ConfigMap (<name> or <namespace>/<name>, same namespace as the Ingress) whose data become fastcgi_param lines.',
      difference: 'a value ingress-nginx takes but NGINX would not (braces, an empty key) refuses the Ingress; the controller watches each named ConfigMap by name (RBAC: see the chart)',
    }),
  ],
  proof: ['controller/src/model/features/fastcgi.test.ts', 'controller/src/model/fastcgi-params.test.ts', 'controller/src/render/backend-protocol-render.test.ts', 'e2e/backend-protocols.test.ts'],
});
