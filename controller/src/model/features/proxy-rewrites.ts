// What NGINX rewrites in a backend's response headers (ingress-nginx v1.15.1:
// annotations/proxy, nginx.tmpl): proxy-cookie-domain and proxy-cookie-path
// (the Domain and Path of Set-Cookie, `off` or `<from> <to>`), and
// proxy-redirect-from / proxy-redirect-to (Location and Refresh), each an
// annotation and the ConfigMap key of the same name. ingress-nginx checks the
// characters and pastes the value: a value of one word (`/foo`) or three
// (`/a /b /c`) passes its check and fails NGINX's for every Ingress. Here each
// side is one token of ingress-nginx's characters, a `~` regex must compile,
// and a value NGINX would refuse is unsupported (the Ingress is not served).
// Invalid values are ignored with a warning, as ingress-nginx's proxy parser.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { CookieRewrite, ProxyRewritesConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';

/** ingress-nginx's cookieDomainChars: `-._~` and letters, digits, `/` and `:`. */
const DOMAIN_TOKEN = /^[-._~a-zA-Z0-9/:]+$/u;
/** ingress-nginx's URLIsValidRegex characters (alphaNumericChars and `,:?&=`). */
const URL_TOKEN = /^[-._~a-zA-Z0-9/:,?&=]+$/u;

/** NGINX reads a configuration in 4 KiB pieces: a longer word fails `nginx -t` ("too long parameter"). */
const MAX_WORD = 1024;

/** A `~` (NGINX: regex) token must compile; the characters allowed hold no class, group or escape. */
function checkRegex(token: string): Checked<string> {
  if (token.length > MAX_WORD) return unsupported(`at most ${MAX_WORD} characters a word`);
  if (!token.startsWith('~')) return accept(token);
  const body = token.replace(/^~\*?/u, '');
  if (body === '') return unsupported('a "~" regex needs a pattern after it');
  try {
    new RegExp(body, 'u');
  } catch {
    return unsupported(`the regex ${JSON.stringify(body)} does not compile`);
  }
  return accept(token);
}

function pairOf(tokens: readonly string[]): Checked<CookieRewrite | null> {
  if (tokens.length === 1 && tokens[0] === 'off') return accept(null);
  if (tokens.length !== 2) return unsupported('NGINX takes `off` or exactly two words, <from> <to>');
  const from = checkRegex(tokens[0]!);
  if (!from.ok) return from;
  return tokens[1]!.length > MAX_WORD ? unsupported(`at most ${MAX_WORD} characters a word`) : accept({ from: from.value, to: tokens[1]! });
}

function parseCookieDomain(raw: string): Checked<CookieRewrite | null> {
  // ingress-nginx: ^(off|[chars]+\s+[chars]+)$ on the value as given (no trimming).
  if (raw === 'off') return accept(null);
  const match = /^([^\s]+)[ \t]+([^\s]+)$/u.exec(raw);
  if (match === null || !DOMAIN_TOKEN.test(match[1]!) || !DOMAIN_TOKEN.test(match[2]!)) {
    return refuse('expected off or "<from domain> <to domain>" of letters, digits and -._~/:');
  }
  return pairOf([match[1]!, match[2]!]);
}

function parseCookiePath(raw: string): Checked<CookieRewrite | null> {
  // ingress-nginx validates without the spaces, then prints the trimmed value: spaces split words.
  if (!URL_TOKEN.test(raw.replaceAll(' ', ''))) return refuse('expected off or "<from path> <to path>" of letters, digits and -._~/:,?&=');
  return pairOf(raw.split(' ').filter((word) => word !== ''));
}

function redirectToken(raw: string): Checked<string> {
  if (!URL_TOKEN.test(raw.replaceAll(' ', ''))) return refuse('expected off or a URL of letters, digits and -._~/:,?&=');
  const words = raw.split(' ').filter((word) => word !== '');
  if (words.length !== 1) return unsupported('one word: NGINX would read a space as the end of the value');
  return words[0]!.length > MAX_WORD ? unsupported(`at most ${MAX_WORD} characters`) : accept(words[0]!);
}

function parseRedirectFrom(raw: string): Checked<string> {
  const token = redirectToken(raw);
  return token.ok ? checkRegex(token.value) : token;
}

export const proxyRewritesFeature = defineFeature({
  name: 'proxyRewrites',
  title: 'Cookie and redirect rewriting',
  doc: 'Rewrites the Domain and Path of the backend\'s Set-Cookie headers (proxy_cookie_domain, proxy_cookie_path: `<from> <to>`) '
    + 'and the start of its Location and Refresh headers (proxy_redirect <proxy-redirect-from> <proxy-redirect-to>), per location; '
    + 'the ConfigMap keys of the same names set the global values. As in ingress-nginx, NGINX\'s own redirect rewriting is off '
    + 'unless both redirect keys are set; `default` (and a from without a to) leaves Location alone, which is what NGINX\'s default '
    + 'does behind this controller\'s balancer.',
  output: { kind: 'location', template: 'features/proxy-rewrites.njk' },
  defaults: { cookieDomain: null, cookiePath: null, redirectFrom: 'off', redirectTo: 'off' },
  keys: [
    field<ProxyRewritesConfig, 'cookieDomain'>('cookieDomain', parseCookieDomain, {
      annotation: { name: 'proxy-cookie-domain', scope: 'location', risk: 'Medium' }, configKey: 'proxy-cookie-domain', defaultText: 'off', invalid: 'ignore',
      doc: 'Rewrites the Domain of Set-Cookie: "<from> <to>" (a leading ~ makes from a regex) or off.',
    }),
    field<ProxyRewritesConfig, 'cookiePath'>('cookiePath', parseCookiePath, {
      annotation: { name: 'proxy-cookie-path', scope: 'location', risk: 'Medium' }, configKey: 'proxy-cookie-path', defaultText: 'off', invalid: 'ignore',
      doc: 'Rewrites the Path of Set-Cookie: "<from> <to>" (a leading ~ makes from a regex) or off.',
    }),
    field<ProxyRewritesConfig, 'redirectFrom'>('redirectFrom', parseRedirectFrom, {
      annotation: { name: 'proxy-redirect-from', scope: 'location', risk: 'Medium' }, configKey: 'proxy-redirect-from', defaultText: 'off', invalid: 'ignore',
      doc: 'Start of the backend\'s Location / Refresh to replace with proxy-redirect-to (a leading ~ makes it a regex); off = no rewriting.',
    }),
    field<ProxyRewritesConfig, 'redirectTo'>('redirectTo', redirectToken, {
      annotation: { name: 'proxy-redirect-to', scope: 'location', risk: 'Medium' }, configKey: 'proxy-redirect-to', defaultText: 'off', invalid: 'ignore',
      doc: 'What replaces proxy-redirect-from in Location / Refresh; off = no rewriting.',
    }),
  ],
  proof: ['controller/src/model/features/proxy-rewrites.test.ts', 'controller/src/render/proxy-tuning-render.test.ts', 'e2e/proxy-tuning.test.ts'],
});
