// custom-http-errors, disable-proxy-intercept-errors and default-backend, read
// together because each location's error pages go to its default backend.
// ingress-nginx v1.15.1 (annotations customhttperrors, disableproxyintercepterrors,
// defaultbackend; nginx.tmpl CUSTOM_ERRORS): an Ingress's codes replace the
// ConfigMap's for its locations, and go to its default-backend Service when it
// has one, else to --default-backend-service, else NGINX's own 404. The
// ConfigMap's codes are printed once per server (to the global default
// backend), which its locations inherit, so an Ingress's config never holds
// them: finish() drops what the Ingress did not write. Each error backend is
// used while it has endpoints (then the global one, then NGINX's 404). default-backend also serves a route whose backend
// has no endpoints: Lua decides that per request (no reload; model/
// custom-error-backends.ts resolves the Service, lua/resty_ingress/default_backend.lua).

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import { checkServiceName } from '../names.ts';
import type { CustomErrorsConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseBoolean } from './values.ts';

/** ingress-nginx's annotation grammar, checked without spaces: `[4,5]` takes a comma too (",12" passes). */
const ANNOTATION_CODES = /^(?:[4,5]\d{2},?)*$/u;

function sortedUnique(codes: readonly number[]): readonly number[] {
  return Object.freeze([...new Set(codes)].sort((a, b) => a - b));
}

/**
 * 400..599, comma-separated, spaces anywhere (ingress-nginx's annotation grammar; it removes the
 * spaces). The ConfigMap key reads the same (one parser for both sources).
 */
export function parseErrorCodes(raw: string): Checked<readonly number[]> {
  const value = raw.replaceAll(' ', '');
  if (!ANNOTATION_CODES.test(value)) return refuse('expected a comma-separated list of status codes from 400 to 599, such as 404,503');
  const codes = value.split(',').filter((piece) => piece !== '').map(Number);
  // Only the comma in ingress-nginx's character class gets here (",12" → 12): NGINX would refuse it.
  const outside = codes.find((code) => code < 400 || code > 599);
  if (outside !== undefined) return unsupported(`status ${outside} is not from 400 to 599`);
  // Only "" is empty here: no codes, the default.
  return accept(sortedUnique(codes));
}

function parseDefaultService(raw: string): Checked<string | null> {
  const checked = checkServiceName(raw);
  return checked.ok ? accept(checked.value) : refuse('expected a Service name (DNS-1035 label) in the Ingress\'s namespace');
}

const DEFAULTS: CustomErrorsConfig = { codes: Object.freeze([]), interceptDisabled: false, defaultService: null, backend: null };

/** An Ingress's config holds only what it wrote (the ConfigMap's codes reach its locations from their server). */
function finish(config: CustomErrorsConfig, given: ReadonlySet<string>): Checked<CustomErrorsConfig> {
  return accept({
    codes: given.has('custom-http-errors') ? config.codes : DEFAULTS.codes,
    interceptDisabled: given.has('disable-proxy-intercept-errors') ? config.interceptDisabled : false,
    defaultService: config.defaultService,
    backend: null,
  });
}

export const customErrorsFeature = defineFeature({
  name: 'customErrors',
  title: 'Custom error pages and default backend',
  doc: 'custom-http-errors sends the listed statuses to the default backend (`proxy_intercept_errors on` and '
    + '`error_page` to a named location per error backend) with ingress-nginx\'s headers X-Code, X-Format, '
    + 'X-Original-URI, X-Namespace, X-Ingress-Name, X-Service-Name, X-Service-Port and X-Request-ID, the URI '
    + 'rewritten to `/` (the query kept). The error backend is the Ingress\'s default-backend Service, else '
    + '--default-backend-service, else NGINX answers 404 itself (each used while it has endpoints). default-backend also answers, with X-Code 503, '
    + 'the requests of a path whose Service has no endpoints; Lua decides per request, so a Service losing or '
    + 'regaining its endpoints never reloads NGINX.',
  output: { kind: 'location', template: 'features/custom-errors.njk' },
  defaults: DEFAULTS,
  keys: [
    field<CustomErrorsConfig, 'codes'>('codes', parseErrorCodes, {
      annotation: { name: 'custom-http-errors', scope: 'location', risk: 'Low' },
      configKey: 'custom-http-errors',
      defaultText: '',
      doc: 'Statuses (400 to 599, comma-separated) answered by the default backend instead: the Ingress\'s for its paths, '
        + 'the ConfigMap\'s (to --default-backend-service) for every path without its own.',
      difference: 'in the ConfigMap, codes from 300 to 399 or a bad code keep the whole value from applying (ingress-nginx takes 300 to 599 and drops a bad code alone)',
    }),
    field<CustomErrorsConfig, 'interceptDisabled'>('interceptDisabled', parseBoolean, {
      annotation: { name: 'disable-proxy-intercept-errors', scope: 'location', risk: 'Low' },
      configKey: 'disable-proxy-intercept-errors',
      defaultText: 'false',
      doc: 'The backend\'s own error responses pass through; only NGINX\'s own errors get the error pages.',
      difference: 'on an Ingress it also turns off the ConfigMap\'s interception for its paths (ingress-nginx keeps that on)',
      invalid: 'ignore',
    }),
    field<CustomErrorsConfig, 'defaultService'>('defaultService', parseDefaultService, {
      annotation: { name: 'default-backend', scope: 'location', risk: 'Low' },
      defaultText: '',
      doc: 'A Service (first port) of the Ingress\'s namespace for its error pages and for paths whose Service has no endpoints, '
        + 'used while it has endpoints (else the error pages go to --default-backend-service, else NGINX answers 404).',
    }),
  ],
  finish,
  proof: [
    'controller/src/model/features/custom-errors.test.ts',
    'controller/src/model/custom-error-backends.test.ts',
    'lua/default-backend.test.ts',
    'e2e/custom-errors.test.ts',
  ],
});
