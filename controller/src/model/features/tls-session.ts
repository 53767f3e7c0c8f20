// TLS sessions and handshakes of the HTTPS listener (ConfigMap only): the
// ssl-session-*, ssl-buffer-size, ssl-ecdh-curve, ssl-early-data keys, printed
// in http {} beside the protocols (features/tls-session.njk), and
// ssl-reject-handshake, in the catch-all server (tls-default-server.njk), and
// ssl-session-ticket-key, whose keys the controller writes to a file NGINX reads
// (model/tls-session-files.ts), so that replicas sharing the ConfigMap resume
// each other's tickets, and ssl-dh-param, the Secret whose dhparam.pem the build
// reads (model/dh-params.ts) and the controller writes beside it.

import { createSecureContext } from 'node:tls';
import { accept, refuse, type Checked } from '../checked.ts';
import type { TlsSessionSettings } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseObjectReference } from './object-ref.ts';
import { parseBoolean } from './values.ts';

const SIZE_SCALE: Readonly<Record<string, number>> = Object.freeze({ '': 1, k: 1024, m: 1024 ** 2 });

/** An NGINX size (bytes, k or m) from `min` to `max` bytes; accepted as written. */
function sizeParser(min: number, max: number, what: string): (value: string) => Checked<string> {
  return (value) => {
    const match = /^(\d{1,7})([kKmM]?)$/u.exec(value);
    const bytes = match ? Number(match[1]) * (SIZE_SCALE[match[2]!.toLowerCase()] ?? 1) : Number.NaN;
    return bytes >= min && bytes <= max ? accept(value) : refuse(`expected ${what}`);
  };
}

/** A shared zone needs 8 pages at least (NGINX: "zone is too small"); 1g bounds the memory one key takes. */
const parseCacheSize = sizeParser(32 * 1024, 1024 ** 3, 'a size from 32k to 1024m, such as 10m');
/** ssl_buffer_size: NGINX writes at most 16k per TLS record. */
const parseBufferSize = sizeParser(512, 16 * 1024, 'a size from 512 to 16k, such as 4k');

/** ssl_session_timeout: an NGINX time in s, m, h or d, at most a week. */
function parseSessionTimeout(value: string): Checked<string> {
  const match = /^(\d{1,7})([smhd]?)$/u.exec(value);
  const unit: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };
  const seconds = match ? Number(match[1]) * (unit[match[2]!] ?? 1) : Number.NaN;
  return seconds >= 1 && seconds <= 604_800 ? accept(value) : refuse('expected a time from 1s to 7d, such as 10m');
}

/** Strict base64 (RFC 4648, padded), as Go's StdEncoding decodes it. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/u;

/**
 * ssl-session-ticket-key: base64 of 48 or 80 bytes, the two sizes NGINX's ssl_session_ticket_key
 * takes (AES-128 or AES-256 tickets). ingress-nginx writes a key of another size with a warning and
 * its reload then fails; here it keeps the default. The value is never quoted (the key is `secret`).
 */
export function parseTicketKey(value: string): Checked<string | null> {
  const text = value.trim();
  if (text === '') return accept(null);
  if (text.length > 108 || !BASE64.test(text)) return refuse('expected the base64 of 48 or 80 random bytes, e.g. from openssl rand 80 | openssl enc -A -base64');
  const bytes = Buffer.from(text, 'base64').length;
  return bytes === 48 || bytes === 80 ? accept(text) : refuse(`expected the base64 of 48 or 80 bytes, got ${bytes} bytes`);
}

/** ssl-dh-param: `namespace/name` of a Secret (ingress-nginx looks it up by that key); empty: none. */
function parseDhParamSecret(value: string): Checked<string | null> {
  return value.trim() === '' ? accept(null) : parseObjectReference(value, false);
}

/** True when OpenSSL (Node's, the same 3.x family as NGINX's) knows every curve of `list`. */
function opensslKnowsCurves(list: string): boolean {
  try {
    createSecureContext({ ecdhCurve: list });
    return true;
  } catch {
    return false;
  }
}

/** ssl-ecdh-curve: `auto` or curve names separated by `:`; an unknown name fails nginx -t, so it is refused here. */
export function parseEcdhCurve(value: string): Checked<string> {
  if (value === 'auto') return accept(value);
  if (!/^[A-Za-z0-9_-]{1,64}(?::[A-Za-z0-9_-]{1,64}){0,31}$/u.test(value)) return refuse('expected auto or curve names separated by ":"');
  return opensslKnowsCurves(value) ? accept(value) : refuse('OpenSSL does not know every curve of this list');
}

export const tlsSessionFeature = defineFeature({
  name: 'tlsSession',
  title: 'TLS sessions',
  doc: 'TLS session cache and tickets, record buffer size, key-exchange curves, TLS 1.3 early data and refusing unknown host names on the HTTPS listener (ConfigMap only).',
  output: { kind: 'global' },
  defaults: { cache: true, cacheSize: '10m', timeout: '10m', tickets: false, bufferSize: '4k', ecdhCurve: 'auto', earlyData: false, rejectHandshake: false, ticketKey: null, dhParamSecret: null, dhParam: null },
  keys: [
    field<TlsSessionSettings, 'cache'>('cache', parseBoolean, { configKey: 'ssl-session-cache', defaultText: 'true', doc: 'A session cache shared by the workers.' }),
    field<TlsSessionSettings, 'cacheSize'>('cacheSize', parseCacheSize, { configKey: 'ssl-session-cache-size', defaultText: '10m', doc: 'Size of the session cache (about 4000 sessions per megabyte).' }),
    field<TlsSessionSettings, 'timeout'>('timeout', parseSessionTimeout, { configKey: 'ssl-session-timeout', defaultText: '10m', doc: 'How long a cached session may be resumed.' }),
    field<TlsSessionSettings, 'tickets'>('tickets', parseBoolean, {
      configKey: 'ssl-session-tickets', defaultText: 'false',
      doc: 'TLS session tickets (without ssl-session-ticket-key, keys made by each NGINX start: resumption does not outlive a restart nor cross replicas).',
    }),
    field<TlsSessionSettings, 'ticketKey'>('ticketKey', parseTicketKey, {
      configKey: 'ssl-session-ticket-key', defaultText: '', secret: true,
      doc: 'The keys that encrypt session tickets (ssl_session_ticket_key), base64 of 48 or 80 random bytes: replicas with the same key resume each other\'s tickets.',
      difference: 'a key of another size keeps the default (ingress-nginx writes it and NGINX refuses the reload); a refused value is never quoted in logs or Events',
    }),
    field<TlsSessionSettings, 'dhParamSecret'>('dhParamSecret', parseDhParamSecret, {
      configKey: 'ssl-dh-param', defaultText: '',
      doc: 'namespace/name of a Secret whose dhparam.pem (openssl dhparam 4096) gives NGINX the Diffie-Hellman parameters the DHE ciphers of ssl-ciphers need (ssl_dhparam); '
        + 'a missing Secret or key leaves NGINX without them, with an error.',
      difference: 'dhparam.pem must be one DH PARAMETERS block of 1024 to 8192 bits (ingress-nginx writes any content, and NGINX then refuses the reload)',
    }),
    field<TlsSessionSettings, 'bufferSize'>('bufferSize', parseBufferSize, { configKey: 'ssl-buffer-size', defaultText: '4k', doc: 'Size of the buffer for sending data (ssl_buffer_size).' }),
    field<TlsSessionSettings, 'ecdhCurve'>('ecdhCurve', parseEcdhCurve, { configKey: 'ssl-ecdh-curve', defaultText: 'auto', doc: 'Curves for ECDHE, e.g. X25519:prime256v1, or auto.' }),
    field<TlsSessionSettings, 'earlyData'>('earlyData', parseBoolean, { configKey: 'ssl-early-data', defaultText: 'false', doc: 'TLS 1.3 early data (0-RTT; requests may be replayed).' }),
    field<TlsSessionSettings, 'rejectHandshake'>('rejectHandshake', parseBoolean, {
      configKey: 'ssl-reject-handshake', defaultText: 'false', doc: 'Refuse TLS handshakes for host names no Ingress serves, and without a host name (ssl_reject_handshake in the catch-all server).',
    }),
  ],
  proof: ['controller/src/model/features/http-tuning.test.ts', 'controller/src/model/features/tls-session.test.ts', 'controller/src/render/http-tuning-render.test.ts',
    'controller/src/render/tls-ticket-key.test.ts', 'controller/src/model/dh-params.test.ts', 'controller/src/render/dh-param-render.test.ts',
    'controller/src/nginx/tls-session-files.test.ts'],
});
