// auth-tls-*: client certificates. Parsed per Ingress like any location
// feature (Location.policy carries it; no partial), but applied per server as
// ingress-nginx does: the oldest Ingress of a host that sets auth-tls-secret
// decides for every path of the host (model/client-auth.ts). The CA bundle,
// the mode, depth, match-cn and error page go to Lua with the certificates
// (lua/resty_ingress/client_auth.lua): changing them is no reload. Only
// turning client auth on or off for a host, or pass-certificate, changes
// nginx.conf. No value reaches nginx.conf: match-cn and the error page travel
// as JSON data, checked again by Lua.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import { checkNamespace, checkObjectName } from '../names.ts';
import { checkBacktracking, newRegexCheckBudget } from '../regex-backtracking.ts';
import type { ClientCertsConfig, ClientCertsSecret, ClientVerify } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { atoi, parseBoolean, parseOneOf } from './values.ts';

const VERIFY: readonly ClientVerify[] = ['on', 'off', 'optional', 'optional_no_ca'];
/** Longer chains than this are not a client certificate anyone issues; NGINX would take any int. */
export const MAX_VERIFY_DEPTH = 100;
const MAX_MATCH_CN = 1024;
/** ingress-nginx's redirectRegex for auth-tls-error-page: a named location or a URL of these characters. */
const ERROR_PAGE = /^(@[A-Za-z0-9_-]+|((https?:\/\/)?[A-Za-z0-9\-.]+(:\d+)?)?(\/[A-Za-z0-9\-_.]+)*\/?)$/u;

function parseSecret(raw: string): Checked<ClientCertsSecret> {
  // k8s.ParseNameNS: "name" (the Ingress's namespace) or "namespace/name".
  const parts = raw.split('/');
  if (parts.length > 2) return refuse('expected <name> or <namespace>/<name>');
  const name = checkObjectName(parts.at(-1));
  if (!name.ok) return refuse(`Secret name: ${name.reason}`);
  if (parts.length === 1) return accept(Object.freeze({ namespace: null, name: name.value }));
  const namespace = checkNamespace(parts[0]);
  if (!namespace.ok) return refuse(`Secret namespace: ${namespace.reason}`);
  return accept(Object.freeze({ namespace: namespace.value, name: name.value }));
}

function parseDepth(raw: string): Checked<number> {
  const depth = atoi(raw);
  if (depth === null || depth < 0n || depth > BigInt(MAX_VERIFY_DEPTH)) return refuse(`expected an integer from 0 to ${MAX_VERIFY_DEPTH}`);
  // ingress-nginx: 0 means its default, 1.
  return accept(depth === 0n ? 1 : Number(depth));
}

function parseErrorPage(raw: string): Checked<string> {
  if (raw.length > 2048 || !ERROR_PAGE.test(raw)) return refuse('expected a URL or @location of letters, digits, "-", "_", ".", ":" and "/"');
  // NGINX redirects (302) to an http(s) URL; anything else ingress-nginx's error_page turns into an
  // internal redirect inside the server (a path, a named location), which is not offered here.
  if (!/^https?:\/\//u.test(raw)) return unsupported('only an http:// or https:// URL is supported (a 302 to it)');
  return accept(raw);
}

/** auth-tls-match-cn: "CN=" and a regex PCRE matches against $ssl_client_s_dn in linear time. */
export function parseMatchCn(raw: string): Checked<string> {
  if (!raw.startsWith('CN=')) return refuse('expected CN= followed by a regular expression');
  // Printable ASCII only: Lua checks the pattern again, and no byte of it can mean anything else there.
  if (raw.length > MAX_MATCH_CN || !/^[\x20-\x7e]+$/u.test(raw)) return refuse(`expected at most ${MAX_MATCH_CN} printable ASCII characters`);
  // Only syntax JavaScript and PCRE2 read alike: Lua compiles it again with PCRE and refuses the
  // whole client-auth push when it cannot, which would hold back every host's update.
  if (/\\[A-Za-z0-9]/u.test(raw.replaceAll(/\\[dDwWsSbB]/gu, '')) || /\(\?<[=!]/u.test(raw)) {
    return refuse('expected escapes \\d \\w \\s \\b (their negations) or of punctuation, and no lookbehind');
  }
  try {
    new RegExp(raw, 'u');
  } catch {
    return refuse('not a valid regular expression');
  }
  // PCRE backtracks: a pattern a client's subject could make super-linear is refused (ReDoS).
  const linear = checkBacktracking(raw, newRegexCheckBudget());
  return linear.ok ? accept(raw) : refuse(linear.reason.replace('regex path', 'match-cn'));
}

export const clientCertsFeature = defineFeature({
  name: 'clientCerts',
  title: 'Client certificates',
  doc: 'Mutual TLS per host (auth-tls-*), as ingress-nginx: the oldest Ingress of a host that names auth-tls-secret decides for every path of '
    + 'the host; a younger one asking for something else gets a Warning Event. Refused requests get NGINX\'s 400 pages (or a 302 to '
    + 'auth-tls-error-page), a subject outside auth-tls-match-cn 403, a request whose Host is not the TLS server name 421, and a host '
    + 'whose CA Secret is missing or holds no ca.crt 403. Upstream gets ssl-client-verify, ssl-client-subject-dn, ssl-client-issuer-dn '
    + 'and, with pass-certificate, ssl-client-cert. The CA and every setting but pass-certificate apply without a reload. A TLS session '
    + 'is resumed only for the host name it was made for, under the same CA, verify mode and depth: after a change (or for another host) '
    + 'its client makes a full handshake and is verified again, so no session keeps a verification the current settings would refuse.',
  output: { kind: 'location', template: null },
  defaults: { secret: null, verify: 'on', depth: 1, errorPage: null, passCertificate: false, matchCn: null },
  keys: [
    field<ClientCertsConfig, 'secret'>('secret', parseSecret, {
      annotation: { name: 'auth-tls-secret', scope: 'location', risk: 'Medium' },
      defaultText: '', doc: 'Secret (name or namespace/name) whose ca.crt holds the CAs client certificates must chain to; another namespace only with '
        + 'the ConfigMap\'s allow-cross-namespace-resources (else the host answers 403).',
      difference: 'a Secret without ca.crt makes the host answer 403 instead of serving without verification',
    }),
    field<ClientCertsConfig, 'verify'>('verify', (raw) => parseOneOf(raw, VERIFY), {
      annotation: { name: 'auth-tls-verify-client', scope: 'location', risk: 'Medium' }, invalid: 'ignore',
      defaultText: 'on', doc: 'on, off, optional or optional_no_ca, as NGINX\'s ssl_verify_client.',
    }),
    field<ClientCertsConfig, 'depth'>('depth', parseDepth, {
      annotation: { name: 'auth-tls-verify-depth', scope: 'location', risk: 'Low' }, invalid: 'ignore',
      defaultText: '1', doc: 'Intermediate certificates allowed between a client certificate and the CA (0 = 1).',
    }),
    field<ClientCertsConfig, 'errorPage'>('errorPage', parseErrorPage, {
      annotation: { name: 'auth-tls-error-page', scope: 'location', risk: 'High' },
      defaultText: '', doc: 'URL a client whose certificate is refused is redirected to (302), instead of NGINX\'s 400 page.',
      difference: 'only an http(s) URL; a path or named location (an internal redirect in ingress-nginx) is refused',
    }),
    field<ClientCertsConfig, 'passCertificate'>('passCertificate', parseBoolean, {
      annotation: { name: 'auth-tls-pass-certificate-to-upstream', scope: 'location', risk: 'Low' },
      defaultText: 'false', doc: 'Send the client certificate (URL-encoded PEM) upstream in ssl-client-cert.',
    }),
    field<ClientCertsConfig, 'matchCn'>('matchCn', parseMatchCn, {
      annotation: { name: 'auth-tls-match-cn', scope: 'location', risk: 'High' },
      defaultText: '', doc: 'CN= and a regular expression the client subject DN must match, else 403; patterns that can backtrack super-linearly are refused.',
    }),
  ],
  proof: ['controller/src/model/features/client-certs.test.ts', 'controller/src/model/client-auth.test.ts', 'lua/client-auth.test.ts', 'lua/client-auth-resumption.test.ts',
    'e2e/client-certs.test.ts', 'e2e/client-cert-sessions.test.ts'],
});
