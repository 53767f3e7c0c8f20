// proxy-ssl-*: TLS to an HTTPS or GRPCS backend (ingress-nginx v1.15.1:
// internal/ingress/annotations/proxyssl). As there, every key but the Secret
// applies only with a Secret, a bad Secret reference refuses the Ingress, and
// the other keys fall back to their defaults with a warning. The Secret's PEMs
// are resolved per build (model/backend-tls.ts) and written as files under
// the NGINX prefix (nginx/backend-tls-files.ts): NGINX 1.26 reads
// proxy_ssl_trusted_certificate only from a file, at load, so a change of the
// Secret is a reload.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { ProxySslConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { parseObjectReference } from './object-ref.ts';
import { atoi } from './values.ts';

/** ingress-nginx's proxySSLCiphersRegex. */
const CIPHERS = /^[A-Za-z0-9+:_!-]{1,1024}$/u;
/** ingress-nginx's IsValidRegex, its validator of proxy-ssl-name. */
const INGRESS_NGINX_SERVER_NAME = /^[-/._~a-zA-Z0-9:^$[\](){}*+?|&=\\]*$/u;
/** A host name (RFC 1123), what NGINX sends as SNI and checks the certificate against. */
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/u;
/** The variables a name may be instead: the request's host, or NGINX's default (the upstream's name). */
const NAME_VARIABLES = new Set(['$host', '$proxy_host']);
const MAX_VERIFY_DEPTH = 100;

function parseOnOff(raw: string): Checked<boolean> {
  if (raw === 'on') return accept(true);
  if (raw === 'off') return accept(false);
  return refuse('expected on or off');
}

function parseProtocols(raw: string): Checked<readonly string[]> {
  if (!/^(?:TLSv1\.2|TLSv1\.3| )*$/u.test(raw)) return refuse('expected TLSv1.2 and/or TLSv1.3, separated by spaces');
  const words = [...new Set(raw.split(' ').filter((word) => word !== ''))].sort();
  // ingress-nginx: nothing left is its default.
  return accept(words.length === 0 ? ['TLSv1.2'] : words);
}

function parseCiphers(raw: string): Checked<string> {
  const value = raw.replaceAll(' ', '');
  return CIPHERS.test(value) ? accept(value) : refuse('expected an OpenSSL cipher list of letters, digits and +:_!-');
}

function parseName(raw: string): Checked<string | null> {
  const value = raw.trim();
  if (HOST_NAME.test(value)) return accept(value.toLowerCase());
  if (NAME_VARIABLES.has(value)) return accept(value);
  return INGRESS_NGINX_SERVER_NAME.test(value)
    ? unsupported('expected a host name, $host or $proxy_host')
    : refuse('expected a host name, $host or $proxy_host');
}

function parseDepth(raw: string): Checked<number> {
  const read = atoi(raw);
  if (read === null) return refuse('expected an integer');
  // ingress-nginx: 0 is its default (1).
  if (read === 0n) return accept(1);
  if (read < 0n || read > BigInt(MAX_VERIFY_DEPTH)) return unsupported(`expected 1 to ${MAX_VERIFY_DEPTH}`);
  return accept(Number(read));
}

export const proxySslFeature = defineFeature({
  name: 'proxySsl',
  title: 'TLS to the backend',
  doc: 'A Secret (namespace/name, in the Ingress\'s namespace) with ca.crt and/or tls.crt + tls.key for TLS to an HTTPS or GRPCS backend: '
    + 'ca.crt verifies the backend (with proxy-ssl-verify on), tls.crt/tls.key authenticate NGINX to it. The other keys apply only with a Secret. '
    + 'The PEMs are written under the NGINX prefix (0600); a change of the Secret reloads NGINX, because NGINX 1.26 reads a trusted CA only from a file at load. '
    + 'Each distinct TLS policy keeps its own upstream connections (ingress-nginx shares them by pod address, so a connection opened with one Ingress\'s client certificate can carry another\'s requests).',
  output: { kind: 'location', template: 'features/proxy-ssl.njk' },
  defaults: { secret: null, verify: false, verifyDepth: 1, name: null, serverName: null, protocols: ['TLSv1.2'], ciphers: 'DEFAULT' },
  keys: [
    field<ProxySslConfig, 'secret'>('secret', (raw) => parseObjectReference(raw, false), {
      annotation: { name: 'proxy-ssl-secret', scope: 'ingress', risk: 'Medium' },
      defaultText: '',
      doc: 'The Secret <namespace>/<name> with ca.crt and/or tls.crt + tls.key.',
      difference: 'applies to the Ingress\'s own paths, as with ingress-nginx\'s proxy-ssl-location-only "true" (its default also sets the first one on the whole server)',
    }),
    field<ProxySslConfig, 'verify'>('verify', parseOnOff, {
      annotation: { name: 'proxy-ssl-verify', scope: 'ingress', risk: 'Low' },
      defaultText: 'off',
      doc: 'on: the backend\'s certificate must chain to ca.crt and match the name (502 otherwise).',
      invalid: 'ignore',
    }),
    field<ProxySslConfig, 'verifyDepth'>('verifyDepth', parseDepth, {
      annotation: { name: 'proxy-ssl-verify-depth', scope: 'ingress', risk: 'Low' },
      defaultText: '1',
      doc: `Longest certificate chain verified (1 to ${MAX_VERIFY_DEPTH}; 0 means 1).`,
      invalid: 'ignore',
    }),
    field<ProxySslConfig, 'name'>('name', parseName, {
      annotation: { name: 'proxy-ssl-name', scope: 'ingress', risk: 'High' },
      defaultText: '',
      doc: 'The name checked against the backend\'s certificate and sent as SNI: a host name, $host or $proxy_host.',
      invalid: 'ignore',
      difference: 'unset, the request host is checked and sent (ingress-nginx: "upstream_balancer"); a regex-like value refuses the Ingress',
    }),
    field<ProxySslConfig, 'serverName'>('serverName', parseOnOff, {
      annotation: { name: 'proxy-ssl-server-name', scope: 'ingress', risk: 'Low' },
      defaultText: 'on',
      doc: 'Send the name as SNI (on or off).',
      invalid: 'ignore',
      difference: 'unset, SNI is sent as for every HTTPS backend here (ingress-nginx: off with a Secret)',
    }),
    field<ProxySslConfig, 'protocols'>('protocols', parseProtocols, {
      annotation: { name: 'proxy-ssl-protocols', scope: 'ingress', risk: 'Low' },
      defaultText: 'TLSv1.2',
      doc: 'TLS versions offered to the backend: TLSv1.2 and/or TLSv1.3.',
      invalid: 'ignore',
    }),
    field<ProxySslConfig, 'ciphers'>('ciphers', parseCiphers, {
      annotation: { name: 'proxy-ssl-ciphers', scope: 'ingress', risk: 'Medium' },
      defaultText: 'DEFAULT',
      doc: 'OpenSSL cipher list for TLS ≤ 1.2 to the backend.',
      invalid: 'ignore',
    }),
  ],
  proof: ['controller/src/model/features/proxy-ssl.test.ts', 'controller/src/model/backend-tls.test.ts', 'controller/src/render/backend-protocol-render.test.ts', 'e2e/backend-protocols.test.ts'],
});
