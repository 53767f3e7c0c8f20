// proxy-body-size and the proxy timeouts: per location, with ConfigMap keys of
// the same names as their global defaults (rendered once in http {}; a
// location prints only what its Ingress changes).

import { refuse, unsupported, type Checked } from '../checked.ts';
import type { ProxyConfig } from '../types.ts';
import { defineFeature, field, type FeatureKey } from './feature.ts';
import { parseNginxOffset, parseSeconds } from './values.ts';

/** A week: long enough for the day-long read timeouts of websockets, far from NGINX's own limits. */
const MAX_TIMEOUT_SECONDS = 604_800;

function parseBodySize(raw: string): Checked<string> {
  // ingress-nginx validates the value without its spaces and uses it trimmed.
  const value = raw.replace(/^ +| +$/gu, '');
  // `0` disables the limit in NGINX; units k/m/g in either case. client_max_body_size is an
  // off_t: 8589934592g passes ingress-nginx's regex and overflows NGINX (nginx -t fails).
  if (/^\d{1,12}[kKmMgG]?$/u.test(value)) {
    const bounded = parseNginxOffset(value, 12);
    return bounded.ok ? bounded : unsupported(bounded.reason);
  }
  // ingress-nginx's own grammar (^(?i)\d+[bkmg]?$): what it takes and NGINX would not is unsupported.
  if (/^\d+[bBkKmMgG]?$/u.test(raw.replaceAll(' ', ''))) return unsupported('NGINX takes at most 12 digits and a unit k, m or g, without spaces');
  return refuse('expected an NGINX size such as 0, 512k, 8m or 1g');
}

function timeout(name: string, key: 'connectTimeout' | 'readTimeout' | 'sendTimeout', defaultText: string, what: string): FeatureKey<ProxyConfig> {
  return field<ProxyConfig, typeof key>(key, (value) => parseSeconds(value, 1, MAX_TIMEOUT_SECONDS), {
    annotation: { name, scope: 'location', risk: 'Low' },
    configKey: name,
    defaultText,
    doc: `${what}, in whole seconds (1 to ${MAX_TIMEOUT_SECONDS}, optional "s").`,
    difference: `at least 1 s and at most a week (ingress-nginx takes any integer): other integers refuse the Ingress`,
    invalid: 'ignore',
  });
}

export const proxyFeature = defineFeature({
  name: 'proxy',
  title: 'Proxy body size and timeouts',
  doc: 'Per-location client_max_body_size and proxy timeouts. The ConfigMap keys of the same names set the global defaults. '
    + 'As in ingress-nginx, an annotation value that does not parse is ignored with a warning and the global value applies.',
  output: { kind: 'location', template: 'features/proxy.njk' },
  defaults: { bodySize: '1m', connectTimeout: 5, readTimeout: 60, sendTimeout: 60 },
  keys: [
    field<ProxyConfig, 'bodySize'>('bodySize', parseBodySize, {
      annotation: { name: 'proxy-body-size', scope: 'location', risk: 'Medium' },
      configKey: 'proxy-body-size',
      defaultText: '1m',
      doc: 'Largest request body (client_max_body_size): a size such as 8m; 0 = unlimited.',
      invalid: 'ignore',
    }),
    timeout('proxy-connect-timeout', 'connectTimeout', '5', 'Time to connect to a backend'),
    timeout('proxy-read-timeout', 'readTimeout', '60', 'Time between two reads from a backend'),
    timeout('proxy-send-timeout', 'sendTimeout', '60', 'Time between two writes to a backend'),
  ],
  proof: ['controller/src/model/features/proxy.test.ts', 'e2e/ingress-nginx-compat.test.ts'],
});
