// Response compression (ConfigMap only): use-gzip and ingress-nginx's gzip-* keys,
// printed once in http {} (features/http-tuning.njk).

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { GzipSettings } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { atoi, parseBoolean } from './values.ts';

/** ingress-nginx's gzip-types default. */
export const DEFAULT_GZIP_TYPES: readonly string[] = Object.freeze([
  'application/atom+xml', 'application/javascript', 'application/x-javascript', 'application/json', 'application/rss+xml',
  'application/vnd.ms-fontobject', 'application/x-font-ttf', 'application/x-web-app-manifest+json', 'application/xhtml+xml',
  'application/xml', 'font/opentype', 'image/svg+xml', 'image/x-icon', 'text/css', 'text/javascript', 'text/plain', 'text/x-component',
]);

/** RFC 6838 type and subtype names (restricted-name), without the `$` NGINX would read as a variable. */
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#&^_.+-]{0,126}$/u;
const MAX_TYPES = 200;
/** gzip_min_length is an NGINX size (ssize_t); ingress-nginx reads an int. */
const MAX_MIN_LENGTH = 2_147_483_647n;

function parseLevel(value: string): Checked<number> {
  const level = atoi(value);
  if (level === null) return refuse('expected an integer from 1 to 9');
  // ingress-nginx prints any integer; NGINX refuses anything but 1..9 (nginx -t would fail).
  return level >= 1n && level <= 9n ? accept(Number(level)) : refuse('expected an integer from 1 to 9 (gzip_comp_level)');
}

function parseMinLength(value: string): Checked<number> {
  const length = atoi(value);
  if (length === null || length < 0n || length > MAX_MIN_LENGTH) return refuse(`expected bytes from 0 to ${MAX_MIN_LENGTH}`);
  return accept(Number(length));
}

/**
 * gzip-types: MIME types separated by spaces, or `*` (any type). Duplicates are printed once and
 * text/html not at all: NGINX always compresses it and warns about either on every reload.
 */
export function parseGzipTypes(value: string): Checked<readonly string[]> {
  const words = value.trim().split(/\s+/u).filter((word) => word !== '');
  if (words.length === 0) return refuse('expected MIME types separated by spaces');
  if (words.length > MAX_TYPES) return refuse(`at most ${MAX_TYPES} MIME types`);
  if (words.includes('*')) return words.length === 1 ? accept(Object.freeze(['*'])) : refuse('"*" stands alone');
  if (!words.every((word) => MIME_TYPE.test(word))) return refuse('expected MIME types such as text/css or application/json');
  return accept(Object.freeze([...new Set(words.map((word) => word.toLowerCase()))].filter((word) => word !== 'text/html')));
}

function parseDisable(value: string): Checked<GzipSettings['disable']> {
  if (value === 'msie6') return accept('msie6');
  if (value.trim() === '') return accept(null);
  return /^[\x21-\x7e ]{1,1024}$/u.test(value)
    ? unsupported('only "msie6": User-Agent regexes are not supported')
    : refuse('expected msie6');
}

export const gzipFeature = defineFeature({
  name: 'gzip',
  title: 'Compression',
  doc: 'gzip compression of responses (ConfigMap only), as ingress-nginx prints it: for any proxied response (gzip_proxied any) '
    + 'of a listed type at least gzip-min-length bytes long, to clients sending Accept-Encoding: gzip, with Vary: Accept-Encoding. '
    + 'Brotli is not supported: the data plane has no brotli module.',
  output: { kind: 'global' },
  defaults: { enabled: false, level: 1, minLength: 256, types: DEFAULT_GZIP_TYPES, disable: null },
  keys: [
    field<GzipSettings, 'enabled'>('enabled', parseBoolean, { configKey: 'use-gzip', defaultText: 'false', doc: 'true compresses responses with gzip.' }),
    field<GzipSettings, 'level'>('level', parseLevel, { configKey: 'gzip-level', defaultText: '1', doc: 'gzip_comp_level, 1 (fastest) to 9.' }),
    field<GzipSettings, 'minLength'>('minLength', parseMinLength, { configKey: 'gzip-min-length', defaultText: '256', doc: 'Smallest response (by Content-Length) compressed, in bytes.' }),
    field<GzipSettings, 'types'>('types', parseGzipTypes, {
      configKey: 'gzip-types', defaultText: DEFAULT_GZIP_TYPES.join(' '), doc: 'MIME types compressed (text/html always is), or *.',
    }),
    field<GzipSettings, 'disable'>('disable', parseDisable, {
      configKey: 'gzip-disable', defaultText: '', doc: 'msie6: no compression for old Internet Explorer.',
      difference: 'only msie6; a User-Agent regex keeps the default',
    }),
  ],
  proof: ['controller/src/model/features/http-tuning.test.ts', 'controller/src/render/http-tuning-render.test.ts', 'e2e/http-config.test.ts'],
});
