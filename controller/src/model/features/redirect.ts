// Redirects as ingress-nginx v1.15.1 reads them (annotations/redirect, the
// app-root and preserve-trailing-slash keys of annotations/rewrite,
// annotations/portinredirect):
// - temporal-redirect wins over permanent-redirect; a code outside 300..307
//   (temporal) or 300..308 (permanent) is the default 302 / 301, a code that
//   is no integer refuses the Ingress (its ValidateInt);
// - a temporal-redirect that is not an http(s) URL drops the whole redirect
//   group (permanent, from-to-www, relative) without a word, as ingress-nginx's
//   extractor skips a parser's non-validation error;
// - app-root is a path; ingress-nginx ignores any other value with a log line;
// - preserve-trailing-slash and use-port-in-redirects fall back to the
//   ConfigMap's value when invalid.
// The redirect `return` and absolute_redirect are static (features/redirect.njk);
// app-root is server level (server.njk), as in ingress-nginx's template;
// from-to-www-redirect is a server of the host's twin (model/www-redirects.ts). The
// HTTPS redirect reads usePort and preserveTrailingSlash (route-key.ts, render).

import { accept, refuse, type Checked } from '../checked.ts';
import type { RedirectConfig, RedirectTarget } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseAppRoot, parseRedirectTarget } from './redirect-url.ts';
import { atoi, parseBoolean } from './values.ts';

/** strconv.Atoi, then ingress-nginx's range: a number outside it is the default. */
function redirectCode(min: number, max: number, fallback: number): (raw: string) => Checked<number> {
  return (raw) => {
    const read = atoi(raw);
    if (read === null) return refuse('expected an integer');
    return accept(read >= BigInt(min) && read <= BigInt(max) ? Number(read) : fallback);
  };
}

const REDIRECT_DEFAULTS: RedirectConfig = {
  permanent: null, permanentCode: 301, temporal: null, temporalCode: 302, relative: false,
  usePort: false, preserveTrailingSlash: false, appRoot: null, fromToWww: false,
};

function finishRedirect(config: RedirectConfig): Checked<RedirectConfig> {
  const temporal: RedirectTarget | null = config.temporal;
  if (temporal === null || temporal.scheme !== null) return accept(config);
  // ingress-nginx's isValidURL refused it (not http*): its parser's error drops the group.
  return accept({ ...config, permanent: null, temporal: null, fromToWww: false, relative: false });
}

export const redirectFeature = defineFeature({
  name: 'redirect',
  title: 'Redirects',
  doc: 'permanent-redirect and temporal-redirect answer every request of the Ingress\'s paths with a redirect '
    + '(temporal wins when both are set); app-root sends `/` of the host to the application path (302); '
    + 'from-to-www-redirect redirects the www. / bare twin of the host to it; relative-redirects makes NGINX\'s '
    + 'own redirects relative; use-port-in-redirects and preserve-trailing-slash shape redirects NGINX and the '
    + 'HTTPS redirect build. A redirect URL is parsed into scheme, host, port, path and query, and only those '
    + 'parts reach nginx.conf.',
  output: { kind: 'location', template: 'features/redirect.njk' },
  defaults: REDIRECT_DEFAULTS,
  keys: [
    field<RedirectConfig, 'permanent'>('permanent', parseRedirectTarget, {
      annotation: { name: 'permanent-redirect', scope: 'location', risk: 'Medium' }, defaultText: '',
      doc: 'An http(s) URL or a path (letters, digits and -._~/:,?&=): every request is redirected there.',
      difference: 'a value of ingress-nginx\'s characters that is neither an http(s) URL with a DNS host nor a path starting with / (ftp://…, //host, a bare word) refuses the Ingress instead of becoming the Location as written',
    }),
    field<RedirectConfig, 'permanentCode'>('permanentCode', redirectCode(300, 308, 301), {
      annotation: { name: 'permanent-redirect-code', scope: 'location', risk: 'Low' }, defaultText: '301',
      doc: 'Status of permanent-redirect; an integer outside 300..308 is 301.',
    }),
    field<RedirectConfig, 'temporal'>('temporal', parseRedirectTarget, {
      annotation: { name: 'temporal-redirect', scope: 'location', risk: 'Medium' }, defaultText: '',
      doc: 'An http(s) URL: every request is redirected there; wins over permanent-redirect.',
      difference: 'as permanent-redirect, a value that is no http(s) URL nor path refuses the Ingress',
    }),
    field<RedirectConfig, 'temporalCode'>('temporalCode', redirectCode(300, 307, 302), {
      annotation: { name: 'temporal-redirect-code', scope: 'location', risk: 'Low' }, defaultText: '302',
      doc: 'Status of temporal-redirect; an integer outside 300..307 is 302.',
    }),
    field<RedirectConfig, 'relative'>('relative', parseBoolean, {
      annotation: { name: 'relative-redirects', scope: 'location', risk: 'Low' }, configKey: 'relative-redirects',
      defaultText: 'false', doc: 'Redirects NGINX issues keep a relative Location (absolute_redirect off).',
    }),
    field<RedirectConfig, 'usePort'>('usePort', parseBoolean, {
      annotation: { name: 'use-port-in-redirects', scope: 'location', risk: 'Low' }, configKey: 'use-port-in-redirects',
      defaultText: 'false', invalid: 'ignore',
      doc: 'Redirects NGINX issues name the listening port; the HTTPS redirect names the --https-port.',
    }),
    field<RedirectConfig, 'preserveTrailingSlash'>('preserveTrailingSlash', parseBoolean, {
      annotation: { name: 'preserve-trailing-slash', scope: 'location', risk: 'Medium' }, configKey: 'preserve-trailing-slash',
      defaultText: 'false', invalid: 'ignore',
      doc: 'The HTTPS redirect keeps a trailing / of the URI (else it is dropped, as ingress-nginx).',
    }),
    field<RedirectConfig, 'appRoot'>('appRoot', parseAppRoot, {
      annotation: { name: 'app-root', scope: 'location', risk: 'Medium' }, defaultText: '', invalid: 'ignore',
      doc: 'A path: a request for / on the host answers 302 to it.',
    }),
    field<RedirectConfig, 'fromToWww'>('fromToWww', parseBoolean, {
      annotation: { name: 'from-to-www-redirect', scope: 'location', risk: 'Low' }, defaultText: 'false',
      doc: 'The host\'s www. twin (the bare twin of a www. host) answers with a redirect to the host (http-redirect-code).',
      difference: 'the Location names no port (ingress-nginx writes the listener\'s, e.g. :443), as the HTTPS redirect',
    }),
  ],
  finish: finishRedirect,
  proof: ['controller/src/model/features/redirect.test.ts', 'controller/src/render/redirect-render.test.ts', 'lua/https-redirect.test.ts',
    'controller/src/model/www-redirects.test.ts', 'e2e/redirects.test.ts'],
});
