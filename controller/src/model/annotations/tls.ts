// HTTP→HTTPS redirect annotations. Both are location-scoped, as in
// ingress-nginx; the ConfigMap keys of the same names set their defaults.

import type { AnnotationSpec } from './types.ts';
import { parseBoolean } from './values.ts';

/** ssl-redirect: redirect plain HTTP when the host has TLS (default true). */
export const sslRedirectAnnotation: AnnotationSpec<'sslRedirect'> = {
  key: 'ssl-redirect',
  scope: 'location',
  field: 'sslRedirect',
  parse: parseBoolean,
};

/** force-ssl-redirect: redirect plain HTTP even when the host has no TLS (default false). */
export const forceSslRedirectAnnotation: AnnotationSpec<'forceSslRedirect'> = {
  key: 'force-ssl-redirect',
  scope: 'location',
  field: 'forceSslRedirect',
  parse: parseBoolean,
};
