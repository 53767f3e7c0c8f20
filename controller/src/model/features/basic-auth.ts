// auth-type, auth-secret, auth-secret-type and auth-realm: basic and digest
// authentication against the users of a Secret, with ingress-nginx v1.15.1's
// rules (internal/ingress/annotations/auth): without auth-type nothing is
// checked; a missing, cross-namespace (unless the ConfigMap's
// allow-cross-namespace-resources) or unusable Secret denies the Ingress's
// locations (503) and warns, it does not refuse the Ingress. Unlike
// ingress-nginx, which writes the users to a file NGINX reads (a reload per
// Secret change), the users are data pushed to Lua (model/credentials.ts,
// Model.credentials) and checked in the access phase of the locations that
// have authentication (lua/resty_ingress/auth.lua): a Secret's new content
// applies without a reload, and the locations without it pay nothing.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import { checkNamespace, checkObjectName } from '../names.ts';
import type { BasicAuthConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';

/** ingress-nginx's CharsWithSpace: what auth-realm may hold (it reaches a quoted header value, never nginx.conf). */
const REALM = /^[-._~a-zA-Z0-9/: ]*$/u;
/** The longest realm taken: far above any real one, well inside one header line. */
const MAX_REALM_CHARS = 256;

/**
 * ingress-nginx's validator is `basic|digest` unanchored, after removing spaces, and its template
 * reads anything but `basic` as digest: only the two words themselves are honoured here.
 */
function parseType(raw: string): Checked<'basic' | 'digest'> {
  if (raw === 'basic' || raw === 'digest') return accept(raw);
  if (/basic|digest/u.test(raw.replaceAll(' ', '')) && /^[-._~a-zA-Z0-9/: ]*$/u.test(raw)) {
    return unsupported('expected exactly basic or digest');
  }
  return refuse('expected basic or digest');
}

function parseSecretType(raw: string): Checked<'auth-file' | 'auth-map'> {
  if (raw === 'auth-file' || raw === 'auth-map') return accept(raw);
  // Unanchored in ingress-nginx: "auth-files" passes its validator, then denies the locations.
  if (/auth-file|auth-map/u.test(raw.replaceAll(' ', ''))) return unsupported('expected exactly auth-file or auth-map');
  return refuse('expected auth-file or auth-map');
}

/** ingress-nginx's BasicChars, the grammar of auth-secret. */
const SECRET_NAME = /^[-._~a-zA-Z0-9/:]*$/u;

/**
 * `name` or `namespace/name` (cache.SplitMetaNamespaceKey: "/name" is the Ingress's namespace).
 * Anything else is 'invalid', not refused: ingress-nginx denies the locations (503) when it looks
 * the Secret up, it does not refuse the Ingress.
 */
function parseSecret(raw: string): Checked<BasicAuthConfig['secret']> {
  if (!SECRET_NAME.test(raw)) return accept('invalid');
  const parts = raw.split('/');
  if (parts.length > 2) return accept('invalid');
  const [namespace, name] = parts.length === 2 ? [parts[0] === '' ? null : parts[0] as string, parts[1] as string] : [null, raw];
  if ((namespace !== null && !checkNamespace(namespace).ok) || !checkObjectName(name).ok) return accept('invalid');
  return accept(Object.freeze({ namespace, name }));
}

function parseRealm(raw: string): Checked<string> {
  if (!REALM.test(raw)) return refuse('expected letters, digits, spaces and -._~/: only');
  if (raw.length > MAX_REALM_CHARS) return unsupported(`expected at most ${MAX_REALM_CHARS} characters`);
  return accept(raw);
}

const DEFAULTS: BasicAuthConfig = { type: null, secret: null, secretType: 'auth-file', realm: '' };

export const basicAuthFeature = defineFeature({
  name: 'basicAuth',
  title: 'Basic and digest authentication',
  doc: 'auth-type basic or digest asks for the users of the Secret auth-secret (an htpasswd file under the key `auth`, '
    + 'or with auth-secret-type auth-map one key per user): 401 with `WWW-Authenticate: Basic realm="<auth-realm>"` '
    + '(digest: an MD5 challenge with qop auth and a nonce valid for 5 minutes) without good credentials; the '
    + 'Authorization header is not sent upstream. Basic takes the hashes NGINX takes: {PLAIN}, {SHA}, {SSHA}, $apr1$ '
    + '(htpasswd -m), bcrypt (htpasswd -B), and the crypt(3) ones ($1$, $5$, $6$, yescrypt, DES); digest the '
    + 'htdigest lines `user:realm:MD5` of the realm. A missing Secret, one in another namespace (unless '
    + 'allow-cross-namespace-resources), or one without a usable user list answers 503 on the Ingress\'s paths, with a '
    + 'Warning Event, as ingress-nginx. The users are pushed to Lua: a Secret\'s new content applies without a reload.',
  output: { kind: 'location', template: 'features/basic-auth.njk' },
  defaults: DEFAULTS,
  keys: [
    field<BasicAuthConfig, 'type'>('type', parseType, {
      annotation: { name: 'auth-type', scope: 'location', risk: 'Low' },
      defaultText: '',
      doc: '`basic` or `digest`; without it auth-secret is ignored, as in ingress-nginx.',
    }),
    field<BasicAuthConfig, 'secret'>('secret', parseSecret, {
      annotation: { name: 'auth-secret', scope: 'location', risk: 'Medium' },
      defaultText: '',
      doc: 'The Secret with the users: `name` (the Ingress\'s namespace) or `namespace/name`. Missing or unusable: 503 and a Warning Event.',
    }),
    field<BasicAuthConfig, 'secretType'>('secretType', parseSecretType, {
      annotation: { name: 'auth-secret-type', scope: 'location', risk: 'Low' },
      defaultText: 'auth-file',
      doc: '`auth-file`: an htpasswd (htdigest for digest) file under the key `auth`; `auth-map`: each key a user, each value its hash.',
    }),
    field<BasicAuthConfig, 'realm'>('realm', parseRealm, {
      annotation: { name: 'auth-realm', scope: 'location', risk: 'Medium' },
      defaultText: '',
      doc: 'The realm of the challenge (letters, digits, spaces and -._~/:); for digest, the realm of the htdigest lines used.',
    }),
  ],
  proof: [
    'controller/src/model/features/basic-auth.test.ts',
    'controller/src/model/credentials.test.ts',
    'lua/auth.test.ts',
    'e2e/basic-auth.test.ts',
  ],
});
