// The TLS listener's global settings (ConfigMap only): protocols, ciphers,
// HSTS and the code of HTTP → HTTPS redirects.

import { createSecureContext } from 'node:tls';
import { accept, refuse, type Checked } from '../checked.ts';
import type { HstsSettings, TlsSettings } from '../types.ts';
import { defineFeature, field, type FeatureKey } from './feature.ts';
import { parseBoolean } from './values.ts';

const PROTOCOLS = new Set(['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3']);
/** Two years: longer HSTS ages are not accepted by browsers' preload lists either. */
const MAX_HSTS_AGE = 63_072_000;

function parseProtocols(value: string): Checked<readonly string[]> {
  const words = value.trim().split(/\s+/u);
  if (words.length === 0 || words.some((word) => !PROTOCOLS.has(word))) {
    return refuse(`expected words from ${[...PROTOCOLS].join(' ')}`);
  }
  return accept(Object.freeze([...new Set(words)]));
}

/** True when OpenSSL's SSL_CTX_set_cipher_list, which NGINX's ssl_ciphers calls, takes `list` (it refuses one that matches no cipher). */
function opensslTakes(list: string): boolean {
  // Node would set TLS_* (TLS 1.3) names as suites; set_cipher_list reads them as unknown names. They stay
  // in place as one: removing them changes the list's meaning (DEFAULT counts only as its first word).
  const forCipherList = list.split(':').map((name) => (name.startsWith('TLS_') ? 'RESTY-UNKNOWN-CIPHER' : name)).join(':');
  try {
    createSecureContext({ ciphers: forCipherList });
    return true;
  } catch {
    return false;
  }
}

function parseCiphers(value: string): Checked<string> {
  // OpenSSL's cipher-list grammar needs only these characters; nothing else can reach nginx.conf.
  if (!/^[A-Za-z0-9_:+!@.=-]{1,2000}$/u.test(value)) return refuse('expected an OpenSSL cipher list');
  // A list that matches no cipher ("!aNULL" alone, a typo) fails nginx -t: every reload would stop.
  return opensslTakes(value) ? accept(value) : refuse('OpenSSL matches no cipher with this list');
}

function parseMaxAge(value: string): Checked<number> {
  if (!/^\d{1,9}$/u.test(value) || Number(value) > MAX_HSTS_AGE) return refuse(`expected whole seconds up to ${MAX_HSTS_AGE}`);
  return accept(Number(value));
}

function parseRedirectCode(value: string): Checked<TlsSettings['redirectCode']> {
  // strconv.Atoi's grammar, as ingress-nginx reads it: Number() alone would take 0x12D or 301.0 as 301.
  const code = /^[+-]?\d{1,10}$/u.test(value) ? Number(value) : Number.NaN;
  return code === 301 || code === 302 || code === 307 || code === 308 ? accept(code) : refuse('expected 301, 302, 307 or 308');
}

/** A ConfigMap key that sets one field of the HSTS settings. */
function hstsKey<K extends keyof HstsSettings>(configKey: string, name: K, parse: (raw: string) => Checked<HstsSettings[K]>, defaultText: string, doc: string): FeatureKey<TlsSettings> {
  return {
    configKey, defaultText, doc, invalid: 'fail',
    set(draft, raw) {
      const parsed = parse(raw);
      if (!parsed.ok) return { reason: parsed.reason, unsupported: false };
      draft.hsts = { ...draft.hsts, [name]: parsed.value };
      return null;
    },
  };
}

export const tlsSettingsFeature = defineFeature({
  name: 'tls',
  title: 'TLS listener',
  doc: 'Protocols, ciphers and HSTS of the HTTPS listener, and the code of HTTP to HTTPS redirects (ConfigMap only).',
  output: { kind: 'global' },
  defaults: {
    protocols: Object.freeze(['TLSv1.2', 'TLSv1.3']),
    ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:'
      + 'ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:'
      + 'DHE-RSA-AES256-GCM-SHA384:DHE-RSA-AES128-GCM-SHA256',
    hsts: Object.freeze({ enabled: true, maxAge: 31_536_000, includeSubdomains: true, preload: false }),
    redirectCode: 308,
  },
  keys: [
    field<TlsSettings, 'protocols'>('protocols', parseProtocols, { configKey: 'ssl-protocols', defaultText: 'TLSv1.2 TLSv1.3', doc: 'TLS versions offered.' }),
    field<TlsSettings, 'ciphers'>('ciphers', parseCiphers, { configKey: 'ssl-ciphers', defaultText: 'ingress-nginx\'s ECDHE/AEAD list', doc: 'OpenSSL cipher list for TLS 1.2 and older; one that matches no cipher keeps the default.' }),
    hstsKey('hsts', 'enabled', parseBoolean, 'true', 'Send Strict-Transport-Security on HTTPS responses.'),
    hstsKey('hsts-max-age', 'maxAge', parseMaxAge, '31536000', 'HSTS max-age in seconds.'),
    hstsKey('hsts-include-subdomains', 'includeSubdomains', parseBoolean, 'true', 'HSTS includeSubDomains.'),
    hstsKey('hsts-preload', 'preload', parseBoolean, 'false', 'HSTS preload.'),
    field<TlsSettings, 'redirectCode'>('redirectCode', parseRedirectCode, { configKey: 'http-redirect-code', defaultText: '308', doc: 'Status of HTTP to HTTPS redirects: 301, 302, 307 or 308.' }),
  ],
  proof: ['controller/src/model/features/tls-settings.test.ts', 'controller/src/render/tls-render.test.ts'],
});
