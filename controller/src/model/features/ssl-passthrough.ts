// ssl-passthrough, as ingress-nginx v1.15.1 reads it (annotations/sslpassthrough):
// a boolean on the Ingress. It only takes effect with --enable-ssl-passthrough;
// which hosts become passthrough and where their connections go is decided over
// every Ingress (model/ssl-passthrough.ts): the oldest Ingress of a host, and the
// backend of the host's `/` location.

import type { SslPassthroughConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseBoolean } from './values.ts';

export const sslPassthroughFeature = defineFeature({
  name: 'sslPassthrough',
  title: 'SSL passthrough',
  doc: 'With --enable-ssl-passthrough, a stream listener owns the HTTPS port and reads the SNI name of each TLS '
    + 'ClientHello: a passthrough host\'s connections go undecrypted to the endpoints of the backend of its `/` path '
    + '(or spec.defaultBackend); every other name goes to the HTTP server, with the client address kept. '
    + 'Without the flag the annotation is ignored with a Warning Event (the host is served terminated). '
    + 'docs/ssl-passthrough.md.',
  output: { kind: 'location', template: null },
  defaults: { enabled: false },
  keys: [
    field<SslPassthroughConfig, 'enabled'>('enabled', parseBoolean, {
      annotation: { name: 'ssl-passthrough', scope: 'ingress', risk: 'Low' }, defaultText: 'false',
      doc: 'true: TLS connections for the Ingress\'s hosts go to the backend without being decrypted (needs --enable-ssl-passthrough).',
      difference: 'the connections go to the Service\'s ready endpoints, not its ClusterIP; the oldest Ingress of a host decides '
        + 'whether it is passthrough (ingress-nginx: any Ingress); the annotation without the flag is reported (Warning Event), not silently ignored',
      invalid: 'ignore',
    }),
  ],
  proof: ['controller/src/model/features/ssl-passthrough.test.ts', 'controller/src/model/ssl-passthrough.test.ts', 'controller/src/render/ssl-passthrough-render.test.ts', 'e2e/ssl-passthrough.test.ts'],
});
