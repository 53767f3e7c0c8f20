// upstream-vhost and x-forwarded-prefix: request headers a location sends
// upstream in place of (Host) or besides (X-Forwarded-Prefix) the usual ones.
// NGINX inherits no proxy_set_header into a location that has one of its own,
// so such a location prints the whole list again from the one template that
// holds it (rootfs/etc/nginx/template/proxy-headers.njk).

import { isIPv6 } from 'node:net';
import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { UpstreamHeadersConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';

/** ingress-nginx's IsValidRegex, its ValidateServerName (run on the trimmed value). */
const INGRESS_NGINX_SERVER_NAME = /^[/\-._~a-zA-Z0-9:^$[\](){}*+?|&=\\]*$/u;
/** A DNS name (labels of letters, digits, `-` and `_`, a trailing dot allowed) or an IPv4 address. */
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/u;
const PORT = /^(?:[1-9]\d{0,4})$/u;

/** ingress-nginx's RegexPathWithCapture (checked with the spaces removed). */
const INGRESS_NGINX_PREFIX = /^\/?[-._~a-zA-Z0-9/:$]*$/u;
/** A path of safe characters where `$` only starts a regex capture ($0..$9). */
const PREFIX_PATH = /^\/?(?:[-._~a-zA-Z0-9/:]|\$\d)*$/u;
const MAX_PREFIX_LENGTH = 1024;

/** The host and port part of upstream-vhost, or null when it is not one. */
function hostAndPort(value: string): string | null {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/u.exec(value);
  if (bracketed) {
    const port = bracketed[2];
    const portOk = port === undefined || (PORT.test(port) && Number(port) <= 65_535);
    return isIPv6(bracketed[1]!) && !bracketed[1]!.includes('%') && portOk ? value : null;
  }
  const colon = value.lastIndexOf(':');
  const host = colon === -1 ? value : value.slice(0, colon);
  const port = colon === -1 ? null : value.slice(colon + 1);
  if (port !== null && (!PORT.test(port) || Number(port) > 65_535)) return null;
  return HOST_NAME.test(host) ? value : null;
}

/**
 * Nothing to send: the engine ignores an empty value with a warning (refused here); spaces only
 * are no error in ingress-nginx either (its validator passes them, its parser then ignores the
 * value), so they give the default without one.
 */
function blank(raw: string): Checked<null> {
  return raw === '' ? refuse('empty') : accept(null);
}

function parseUpstreamHost(raw: string): Checked<string | null> {
  // ingress-nginx trims the value before it validates and uses it.
  const value = raw.trim();
  if (value === '') return blank(raw);
  if (hostAndPort(value) !== null) return accept(value);
  // ingress-nginx takes regex characters and `$` (NGINX variables) here; only a plain host is safe to send.
  if (INGRESS_NGINX_SERVER_NAME.test(value)) return unsupported('only a host name or IP address, with an optional port, is supported');
  return refuse('expected a host name or IP address, with an optional port');
}

function parseForwardedPrefix(raw: string): Checked<string | null> {
  const value = raw.trim();
  if (value === '') return blank(raw);
  if (value.length <= MAX_PREFIX_LENGTH && PREFIX_PATH.test(value)) return accept(value);
  // ingress-nginx validates without the spaces and sends them; `$name` would be an NGINX variable.
  if (INGRESS_NGINX_PREFIX.test(value.replaceAll(' ', ''))) {
    return unsupported(`a path of at most ${MAX_PREFIX_LENGTH} characters without spaces, "$" only before a capture digit ($1)`);
  }
  return refuse('expected a path of letters, digits and - . _ ~ / :, with $1..$9 for captures');
}

export const upstreamHeadersFeature = defineFeature({
  name: 'upstreamHeaders',
  title: 'Upstream Host and X-Forwarded-Prefix',
  doc: 'The Host header sent to the backend (default: the request\'s host) and an X-Forwarded-Prefix header (default: none). '
    + 'A location that sets either still sends every other header of the list (X-Real-IP, X-Forwarded-*, Upgrade/Connection, '
    + 'the emptied Proxy). X-Forwarded-Host stays the request\'s host, as in ingress-nginx.',
  output: { kind: 'location', template: 'features/upstream-headers.njk' },
  defaults: { host: null, prefix: null },
  keys: [
    field<UpstreamHeadersConfig, 'host'>('host', parseUpstreamHost, {
      annotation: { name: 'upstream-vhost', scope: 'location', risk: 'Low' },
      defaultText: '$host',
      doc: 'The Host header sent upstream: a host name or IP address, optionally with a port (e.g. api.internal:8080).',
      difference: 'NGINX variables and regex characters, which ingress-nginx lets through, refuse the Ingress',
    }),
    field<UpstreamHeadersConfig, 'prefix'>('prefix', parseForwardedPrefix, {
      annotation: { name: 'x-forwarded-prefix', scope: 'location', risk: 'Medium' },
      defaultText: '(not sent)',
      doc: 'The X-Forwarded-Prefix header sent upstream, e.g. /api; $1..$9 are the captures of a regex path. Empty: not sent.',
      difference: 'spaces and "$" other than before a capture digit, which ingress-nginx lets through, refuse the Ingress',
    }),
  ],
  proof: ['controller/src/model/features/upstream-headers.test.ts', 'controller/src/render/client-headers.test.ts', 'e2e/upstream-selection.test.ts'],
});
