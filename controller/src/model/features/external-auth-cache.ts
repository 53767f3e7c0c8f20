// auth-cache-key and auth-cache-duration (and their global-auth-* keys): the
// auth service's answers cached by NGINX's proxy_cache. ingress-nginx checks
// the key with NGINXVariable (letters, digits, -, _, $, { and }) and pastes it
// into nginx.conf, so any variable gets in; here a key is literal letters,
// digits, - and _ and variables from an allow-list (request facts a cache may
// be keyed by). A duration is ingress-nginx's `[code …] time` list, each entry
// one proxy_cache_valid line; NGINX takes one time per line (no `1h 30m`) and
// codes from 100 to 599, which ingress-nginx does not check (unsupported here).

import { accept, refuse, unsupported, type Checked } from '../checked.ts';

/** ingress-nginx's NGINXVariable: its validator of auth-cache-key. */
const INGRESS_NGINX_KEY = /^[A-Za-z0-9\-_${}]*$/u;
/** Variables a cache key may use: what identifies a caller or a resource. */
const VARIABLES = new Set(['host', 'http_host', 'remote_addr', 'remote_user', 'uri', 'request_uri', 'args', 'request_method', 'scheme']);
/** Families of variables by name (a header, a cookie or an argument of the request), lower case as NGINX names them. */
const FAMILIES = /^(?:http|cookie|arg)_[a-z0-9_]{1,64}$/u;

export const DEFAULT_CACHE_DURATION: readonly string[] = Object.freeze(['200 202 401 5m']);

/**
 * auth-cache-key: literals and allowed variables, `$name` or `${name}`, as NGINX reads them. Render
 * lets no brace into nginx.conf: `${name}` comes out as `$name`, the same key to NGINX, and one
 * followed by a letter, digit or _ (which only braces can end) is unsupported.
 */
export function parseCacheKey(raw: string): Checked<string | null> {
  const value = raw.trim();
  if (value === '') return accept(null);
  const takes = INGRESS_NGINX_KEY.test(value);
  if (!takes) return refuse('expected letters, digits, - and _ and NGINX variables');
  if (value.length > 256) return unsupported('at most 256 characters');
  let key = '';
  for (let at = 0; at < value.length;) {
    const rest = value.slice(at);
    const variable = /^\$(?:\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/u.exec(rest);
    if (variable !== null) {
      const name = variable[1] ?? variable[2] ?? '';
      if (!VARIABLES.has(name) && !FAMILIES.test(name)) return unsupported(`the variable "$${name}" is not allowed in a cache key`);
      at += variable[0].length;
      if (/^[A-Za-z0-9_]/u.test(value.slice(at))) return unsupported(`"\${${name}}" followed by a letter, digit or _: write the key another way`);
      key += `$${name}`;
    } else if (/^[A-Za-z0-9_-]/u.test(rest)) {
      key += rest[0];
      at += 1;
    } else {
      return unsupported('expected literal letters, digits, - and _ and variables written $name or ${name}');
    }
  }
  return accept(key);
}

/** auth-cache-duration: a comma list of `[code …] time`. */
export function parseCacheDuration(raw: string): Checked<readonly string[]> {
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0) return accept(DEFAULT_CACHE_DURATION);
  if (!/^[-._~a-zA-Z0-9/:, ]*$/u.test(raw)) return refuse('expected status codes and a time, e.g. "200 202 10m"');
  const lines: string[] = [];
  for (const entry of entries) {
    const words = entry.split(' ').filter((word) => word !== '');
    const time = words.at(-1) ?? '';
    const codes = words.slice(0, -1);
    if (!/^[0-9]{1,9}(?:ms|s|m|h|d|w|M|y)$/u.test(time)) return refuse(`"${entry.slice(0, 40)}" must end in one time, e.g. 5m`);
    if (!codes.every((code) => /^[1-5][0-9]{2}$/u.test(code))) return unsupported(`"${entry.slice(0, 40)}": status codes from 100 to 599, then one time`);
    lines.push([...codes, time].join(' '));
  }
  return accept(Object.freeze(lines));
}
