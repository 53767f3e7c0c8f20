// ssl-redirect and force-ssl-redirect: per location, the ConfigMap keys of the
// same names set their defaults. ssl-redirect depends on whether the host has
// a certificate, which is dynamic: the location's route carries the flag and
// Lua decides per request (lua/resty_ingress/https_redirect.lua), so adding
// TLS to a host never reloads. force-ssl-redirect is a static `return`.

import type { SslRedirectConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseBoolean } from './values.ts';

export const sslRedirectFeature = defineFeature({
  name: 'sslRedirect',
  title: 'HTTP to HTTPS redirects',
  doc: 'ssl-redirect redirects plain HTTP to HTTPS when the request host has a certificate (decided per request '
    + 'by Lua: adding TLS to a host is no reload); force-ssl-redirect always redirects. The code is the '
    + 'ConfigMap\'s http-redirect-code.',
  output: { kind: 'location', template: 'features/ssl-redirect.njk' },
  defaults: { redirect: true, force: false },
  keys: [
    field<SslRedirectConfig, 'redirect'>('redirect', parseBoolean, {
      annotation: { name: 'ssl-redirect', scope: 'location', risk: 'Low' },
      configKey: 'ssl-redirect',
      defaultText: 'true',
      doc: 'Redirect plain HTTP when the host has a certificate.',
      invalid: 'ignore',
    }),
    field<SslRedirectConfig, 'force'>('force', parseBoolean, {
      annotation: { name: 'force-ssl-redirect', scope: 'location', risk: 'Medium' },
      configKey: 'force-ssl-redirect',
      defaultText: 'false',
      doc: 'Redirect plain HTTP even when the host has no certificate.',
      invalid: 'ignore',
    }),
  ],
  proof: ['controller/src/model/features/ssl-redirect.test.ts', 'lua/https-redirect.test.ts', 'e2e/tls.test.ts'],
});
