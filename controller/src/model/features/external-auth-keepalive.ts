// auth-keepalive, -keepalive-requests, -keepalive-timeout and -keepalive-share-vars, as
// ingress-nginx v1.15.1 reads them (annotations/authreq): integers as strconv.Atoi reads them
// (an invalid one is ignored: the default applies), a negative auth-keepalive is 0, and
// auth-keepalive-requests or -timeout of 0 or less turns keepalive off. Only an Ingress's own
// auth-url has them (ingress-nginx gives the global auth no keepalive).
//
// Keepalive makes the auth location proxy to an `upstream` of the auth host with `keepalive`
// (render/external-auth-upstream-view.ts). ingress-nginx needs a Lua subrequest for that (its
// nginx.tmpl cites NGINX ticket 1579) and so turns it off with HTTP/2, its default; here the
// subrequest stays NGINX's auth_request on every listener: NGINX keeps the connection for an auth
// answer without a body (204, Content-Length: 0, as oauth2-proxy's 202), and closes it after one
// with a body, which auth_request does not read. auth_request's subrequest always shares the
// request's variables, as share-vars "true" does; nothing rendered in the auth location reads or
// sets one, so "false" changes nothing observable.

import { accept, unsupported, refuse, type Checked } from '../checked.ts';
import type { ExternalAuthConfig } from '../types.ts';
import { atoi } from './values.ts';

/** ngx_http_upstream_keepalive allocates every cached connection slot when NGINX loads: bounded. */
export const MAX_KEEPALIVE_CONNECTIONS = 10_000;
/** keepalive_requests and the timeout's milliseconds stay 32-bit. */
export const MAX_KEEPALIVE_REQUESTS = 2_147_483_647;
export const MAX_KEEPALIVE_TIMEOUT = 2_147_483;

export const KEEPALIVE_DEFAULTS = Object.freeze({ keepalive: 0, keepaliveRequests: 1000, keepaliveTimeout: 60, keepaliveShareVars: false });

function integer(raw: string, max: number, what: string): Checked<number> {
  const read = atoi(raw);
  if (read === null) return refuse('expected an integer');
  if (read > BigInt(max)) return unsupported(`${what} of at most ${max}`);
  // 0 or less: ingress-nginx turns keepalive off (finishKeepalive).
  return accept(read <= 0n ? 0 : Number(read));
}

/** auth-keepalive: idle connections kept per worker; negative is 0 (keepalive off). */
export function parseKeepaliveConnections(raw: string): Checked<number> {
  return integer(raw, MAX_KEEPALIVE_CONNECTIONS, 'keepalive connections');
}

/** auth-keepalive-requests: requests per connection; 0 or less turns keepalive off. */
export function parseKeepaliveRequests(raw: string): Checked<number> {
  return integer(raw, MAX_KEEPALIVE_REQUESTS, 'requests per connection');
}

/** auth-keepalive-timeout: seconds an idle connection stays; 0 or less turns keepalive off. */
export function parseKeepaliveTimeout(raw: string): Checked<number> {
  return integer(raw, MAX_KEEPALIVE_TIMEOUT, 'seconds');
}

type KeepaliveFields = Pick<ExternalAuthConfig, 'keepalive' | 'keepaliveRequests' | 'keepaliveTimeout' | 'keepaliveShareVars'>;

/**
 * The keepalive an Ingress's own auth-url gets from what it set (unset keys at ingress-nginx's
 * defaults): off (0 connections) unless requests and timeout are both positive.
 */
export function finishKeepalive(config: KeepaliveFields, given: ReadonlySet<string>): KeepaliveFields {
  const requests = given.has('auth-keepalive-requests') ? config.keepaliveRequests : KEEPALIVE_DEFAULTS.keepaliveRequests;
  const timeout = given.has('auth-keepalive-timeout') ? config.keepaliveTimeout : KEEPALIVE_DEFAULTS.keepaliveTimeout;
  const connections = given.has('auth-keepalive') && requests > 0 && timeout > 0 ? config.keepalive : 0;
  return {
    keepalive: connections,
    keepaliveRequests: requests,
    keepaliveTimeout: timeout,
    keepaliveShareVars: given.has('auth-keepalive-share-vars') ? config.keepaliveShareVars : KEEPALIVE_DEFAULTS.keepaliveShareVars,
  };
}
