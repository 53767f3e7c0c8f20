// The logs (ConfigMap only): ingress-nginx's keys for the access log's format,
// its escaping, the URIs it skips, switching it off, where it goes, and the
// error log's level.

import type { AccessLogSettings } from '../types.ts';
import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import { DEFAULT_LOG_FORMAT, parseLogFormat } from '../log-format.ts';
import { defineFeature, field } from './feature.ts';
import { parseBoolean, parseOneOf } from './values.ts';

/** ingress-nginx's access-log-path default: here it is `<prefix>/access.log` (NGINX writes only inside its prefix). */
export const INGRESS_NGINX_ACCESS_LOG_PATH = '/var/log/nginx/access.log';

const ERROR_LOG_LEVELS = ['debug', 'info', 'notice', 'warn', 'error', 'crit', 'alert', 'emerg'] as const;

/** Bounds what one key adds to the `map $request_uri` of http {}. */
const MAX_SKIP_URLS = 100;
const MAX_SKIP_URL_LENGTH = 1024;
/** RFC 3986 path and query characters, without quotes, `\`, `;`, `{`, `}`, `$`, `#` or `,` (the separator). */
const SKIP_URL = /^\/[A-Za-z0-9._~!&()*+=:@%/?-]*$/u;

/**
 * skip-access-log-urls: comma-separated request URIs (ingress-nginx splits on "," and trims),
 * each matched exactly against `$request_uri`. Each must start with `/`: a `~` (regex) or a word
 * such as `default` would change what the `map` means.
 */
export function parseSkipUrls(value: string): Checked<readonly string[]> {
  const items = value.split(',').map((item) => item.trim()).filter((item) => item !== '');
  if (items.length > MAX_SKIP_URLS) return refuse(`at most ${MAX_SKIP_URLS} URLs`);
  for (const item of items) {
    if (item.length > MAX_SKIP_URL_LENGTH || !SKIP_URL.test(item)) {
      return refuse(`expected comma-separated request URIs starting with "/" (at most ${MAX_SKIP_URL_LENGTH} characters of a URI, no quotes, spaces, ";" or "$")`);
    }
  }
  return accept(Object.freeze([...new Set(items)]));
}

/** access-log-path: only ingress-nginx's default path, which is the prefix's access.log here. */
export function parseAccessLogPath(value: string): Checked<NonNullable<AccessLogSettings['path']>> {
  if (value === INGRESS_NGINX_ACCESS_LOG_PATH) return accept('prefix');
  if (value.startsWith('/') || value.startsWith('syslog:')) {
    return unsupported(`NGINX runs unprivileged and writes logs only inside its prefix: only ${INGRESS_NGINX_ACCESS_LOG_PATH} (written as <prefix>/access.log)`);
  }
  return refuse('expected an absolute path');
}

export const accessLogFeature = defineFeature({
  name: 'accessLog',
  title: 'Access log',
  doc: 'The access log\'s format (ingress-nginx\'s upstreaminfo by default, with $namespace, $ingress_name, $service_name '
    + 'and $service_port of the request\'s path), its escaping, URIs it skips, switching it off, and the error log\'s level.',
  output: { kind: 'global' },
  defaults: { enabled: true, format: DEFAULT_LOG_FORMAT, escapeJson: false, escapeNone: false, skipUrls: Object.freeze([]), path: 'prefix', errorLogLevel: 'notice' },
  keys: [
    field<AccessLogSettings, 'enabled'>('enabled', (raw) => {
      const parsed = parseBoolean(raw);
      return parsed.ok ? { ok: true, value: !parsed.value } : parsed;
    }, { configKey: 'disable-access-log', defaultText: 'false', doc: 'true turns the access log off.' }),
    field<AccessLogSettings, 'format'>('format', parseLogFormat, {
      configKey: 'log-format-upstream', defaultText: 'upstreaminfo',
      doc: 'The log_format text; $namespace, $ingress_name, $service_name and $service_port are those of the path that served the request (empty elsewhere).',
      difference: 'every $variable must be one NGINX or our nginx.conf defines; no \' or \\ or ;',
    }),
    field<AccessLogSettings, 'escapeJson'>('escapeJson', parseBoolean, { configKey: 'log-format-escape-json', defaultText: 'false', doc: 'escape=json on the log format.' }),
    field<AccessLogSettings, 'escapeNone'>('escapeNone', parseBoolean, { configKey: 'log-format-escape-none', defaultText: 'false', doc: 'escape=none on the log format (wins over log-format-escape-json).' }),
    field<AccessLogSettings, 'skipUrls'>('skipUrls', parseSkipUrls, {
      configKey: 'skip-access-log-urls', defaultText: '',
      doc: 'Comma-separated request URIs (path and query exactly as sent) that are not logged.',
      difference: 'each must start with "/" and hold only URI characters (no ~regex)',
    }),
    field<AccessLogSettings, 'path'>('path', parseAccessLogPath, {
      configKey: 'access-log-path', defaultText: INGRESS_NGINX_ACCESS_LOG_PATH,
      doc: 'Where the access log goes: <prefix>/access.log.',
      difference: 'NGINX runs unprivileged inside its prefix: only the default path, written as <prefix>/access.log; any other path keeps it',
    }),
    field<AccessLogSettings, 'errorLogLevel'>('errorLogLevel', (raw) => parseOneOf(raw, ERROR_LOG_LEVELS), {
      configKey: 'error-log-level', defaultText: 'notice', doc: 'The error_log level: debug, info, notice, warn, error, crit, alert or emerg.',
    }),
  ],
  proof: ['controller/src/model/features/access-log.test.ts', 'controller/src/render/access-log.test.ts', 'controller/src/render/http-tuning-render.test.ts', 'e2e/http-config.test.ts'],
});
