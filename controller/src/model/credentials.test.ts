// Model.credentials from the Secrets (ingress-nginx v1.15.1 annotations/auth:
// dumpSecretAuthFile / dumpSecretAuthMap, SplitMetaNamespaceKey, the
// cross-namespace check; its e2e test/e2e/annotations/auth.go: a missing Secret
// answers 503, a user line "foo:" answers 401). Each row builds the servers of one
// or two Ingresses and the Secrets, and checks the sets and the warnings.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import { MAX_USERS, resolveCredentials } from './credentials.ts';
import type { BasicAuthConfig, CredentialSet, Location, Server } from './types.ts';

const APR1 = '$apr1$8sFt66rZ$5f4dG6uJPUDcCdyvCGEji1';
const BCRYPT = '$2y$05$abcdefghijklmnopqrstuuLK7U1u6pVRmL7L1BBM2aS35PSZnDXlK';
const HA1 = '48a8e8834a347180df42057998d4e2ba';
const PREFIX = 'nginx.ingress.kubernetes.io';

/** auth-secret as the feature parses it (features/basic-auth.test.ts): `name` or `namespace/name`. */
function named(text: string): BasicAuthConfig['secret'] {
  const [namespace, name] = text.includes('/') ? text.split('/') as [string, string] : [null, text];
  return { namespace, name };
}

function auth(config: Partial<BasicAuthConfig>): BasicAuthConfig {
  return { type: 'basic', secret: named('users'), secretType: 'auth-file', realm: 'test auth', ...config };
}

function location(path: string, ingress: string, config: BasicAuthConfig | null, namespace = 'ns'): Location {
  return {
    path, match: 'prefix', route: { kind: 'backend', backend: 'ns-app-80', key: `- ns-app-80 a.test ${namespace} ${ingress} app ${path}` },
    ingress: { namespace, name: ingress }, policy: config === null ? {} : { basicAuth: config },
  };
}

function servers(...locations: Location[]): Server[] {
  return [{ hostname: 'a.test', locations }];
}

function secret(name: string, data: Record<string, string>, namespace = 'ns'): V1Secret {
  return { metadata: { name, namespace }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) };
}

interface Row {
  readonly name: string;
  readonly servers: Server[];
  readonly secrets: V1Secret[];
  readonly allowCrossNamespace?: boolean;
  readonly sets: CredentialSet[];
  /** The warnings, as "<ingress> <message start>". */
  readonly warnings: string[];
}

const WARN = (ingress: string, text: string): string => `ns/${ingress} ${text}`;

const rows: Row[] = [
  {
    name: 'an htpasswd file (apr1 and bcrypt), comments, CRLF and blank lines',
    servers: servers(location('/a', 'app', auth({})), location('/b', 'app', auth({}))),
    secrets: [secret('users', { auth: `# users\r\nfoo:${APR1}\r\n\nbar:${BCRYPT}:comment\n` })],
    sets: [{ id: 'ns/app', type: 'basic', realm: 'test auth', users: { foo: APR1, bar: BCRYPT } }], warnings: [],
  },
  {
    name: 'a user line "foo:" is kept with no password: nobody signs in as foo (ingress-nginx: 401)',
    servers: servers(location('/a', 'app', auth({}))), secrets: [secret('users', { auth: 'foo:\n' })],
    sets: [{ id: 'ns/app', type: 'basic', realm: 'test auth', users: { foo: '' } }], warnings: [],
  },
  {
    name: 'the first line of a user wins, as NGINX reads the file',
    servers: servers(location('/a', 'app', auth({}))), secrets: [secret('users', { auth: 'foo:{PLAIN}one\nfoo:{PLAIN}two\n' })],
    sets: [{ id: 'ns/app', type: 'basic', realm: 'test auth', users: { foo: '{PLAIN}one' } }], warnings: [],
  },
  {
    name: 'users named __proto__ and constructor are users like any other (own properties of a plain object)',
    servers: servers(location('/a', 'app', auth({}))), secrets: [secret('users', { auth: `__proto__:${APR1}\nconstructor:{PLAIN}x\n` })],
    sets: [{ id: 'ns/app', type: 'basic', realm: 'test auth', users: JSON.parse(`{"__proto__":"${APR1}","constructor":"{PLAIN}x"}`) as Record<string, string> }], warnings: [],
  },
  {
    name: 'auth-map: each key a user',
    servers: servers(location('/a', 'app', auth({ secretType: 'auth-map' }))), secrets: [secret('users', { foo: APR1, bar: '{SHA}/vNB+F2HQ559kaLUZbmHHvZrXpg=\n' })],
    sets: [{ id: 'ns/app', type: 'basic', realm: 'test auth', users: { bar: '{SHA}/vNB+F2HQ559kaLUZbmHHvZrXpg=', foo: APR1 } }], warnings: [],
  },
  {
    name: 'digest: the htdigest lines of the realm, others skipped',
    servers: servers(location('/a', 'app', auth({ type: 'digest' }))),
    secrets: [secret('users', { auth: `alice:test auth:${HA1.toUpperCase()}\nbob:other realm:${HA1}\n` })],
    sets: [{ id: 'ns/app', type: 'digest', realm: 'test auth', users: { alice: HA1 } }], warnings: [],
  },
  {
    name: 'namespace/name of the Ingress\'s own namespace',
    servers: servers(location('/a', 'app', auth({ secret: named('ns/users') }))), secrets: [secret('users', { auth: `foo:${APR1}` })],
    sets: [{ id: 'ns/app', type: 'basic', realm: 'test auth', users: { foo: APR1 } }], warnings: [],
  },
  {
    name: 'another namespace with allow-cross-namespace-resources',
    servers: servers(location('/a', 'app', auth({ secret: named('other/users') }))), secrets: [secret('users', { auth: `foo:${APR1}` }, 'other')],
    allowCrossNamespace: true,
    sets: [{ id: 'ns/app', type: 'basic', realm: 'test auth', users: { foo: APR1 } }], warnings: [],
  },
  {
    name: 'another namespace without it: 503',
    servers: servers(location('/a', 'app', auth({ secret: named('other/users') }))), secrets: [secret('users', { auth: `foo:${APR1}` }, 'other')],
    sets: [], warnings: [WARN('app', 'Secret other/users is in another namespace')],
  },
  {
    name: 'a missing Secret: 503 for that Ingress, the other keeps its users',
    servers: servers(location('/a', 'app', auth({ secret: named('gone') })), location('/b', 'other', auth({}))),
    secrets: [secret('users', { auth: `foo:${APR1}` })],
    sets: [{ id: 'ns/other', type: 'basic', realm: 'test auth', users: { foo: APR1 } }], warnings: [WARN('app', 'Secret ns/gone not found')],
  },
  {
    name: 'a Secret of the same name in another namespace is not the Ingress\'s',
    servers: servers(location('/a', 'app', auth({}))), secrets: [secret('users', { auth: `foo:${APR1}` }, 'other')],
    sets: [], warnings: [WARN('app', 'Secret ns/users not found')],
  },
  {
    name: 'auth-file without the key auth',
    servers: servers(location('/a', 'app', auth({}))), secrets: [secret('users', { foo: APR1 })],
    sets: [], warnings: [WARN('app', 'Secret ns/users: the Secret has no key auth')],
  },
  {
    name: 'a hash of a form nothing here checks: the whole Secret is refused, not let through',
    servers: servers(location('/a', 'app', auth({}))), secrets: [secret('users', { auth: `foo:${APR1}\nbar:{MD4}abc\n` })],
    sets: [], warnings: [WARN('app', 'Secret ns/users: user "bar" has a password hash of a form that cannot be checked')],
  },
  {
    name: 'a digest line of the realm without 32 hex digits',
    servers: servers(location('/a', 'app', auth({ type: 'digest' }))), secrets: [secret('users', { auth: 'alice:test auth:xyz\n' })],
    sets: [], warnings: [WARN('app', 'Secret ns/users: user "alice" has no MD5 digest')],
  },
  {
    name: 'an empty user name',
    servers: servers(location('/a', 'app', auth({}))), secrets: [secret('users', { auth: `:${APR1}\n` })],
    sets: [], warnings: [WARN('app', 'Secret ns/users: a user name is empty')],
  },
  {
    name: `more than ${MAX_USERS} users`,
    servers: servers(location('/a', 'app', auth({}))),
    secrets: [secret('users', { auth: Array.from({ length: MAX_USERS + 1 }, (_, i) => `u${i}:{PLAIN}x`).join('\n') })],
    sets: [], warnings: [WARN('app', `Secret ns/users: more than ${MAX_USERS} users`)],
  },
  {
    name: 'an auth-secret that names no Secret: 503',
    servers: servers(location('/a', 'app', auth({ secret: 'invalid' }))), secrets: [secret('users', { auth: `foo:${APR1}` })],
    sets: [], warnings: [WARN('app', 'auth-secret is not a Secret name')],
  },
  {
    name: 'auth-type without auth-secret: 503',
    servers: servers(location('/a', 'app', auth({ secret: null }))), secrets: [], sets: [], warnings: [WARN('app', 'auth-secret is not set')],
  },
  {
    name: 'auth-secret without auth-type: no authentication, as ingress-nginx',
    servers: servers(location('/a', 'app', auth({ type: null }))), secrets: [secret('users', { auth: `foo:${APR1}` })], sets: [], warnings: [],
  },
  {
    name: 'locations without auth: nothing',
    servers: servers(location('/a', 'app', null)), secrets: [secret('users', { auth: `foo:${APR1}` })], sets: [], warnings: [],
  },
];

void describe('credentials: the users of each Ingress with auth-type', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const resolved = resolveCredentials(row.servers, row.secrets, row.allowCrossNamespace ?? false, PREFIX);
      assert.deepEqual(resolved.sets, row.sets);
      for (const set of resolved.sets) assert.equal(Object.getPrototypeOf(set.users), Object.prototype, 'a plain object (fast-deep-equal compares it)');
      assert.equal(resolved.failures.length, row.warnings.length, JSON.stringify(resolved.failures));
      resolved.failures.forEach((failure, i) => {
        const text = `${failure.ingress?.namespace}/${failure.ingress?.name} ${failure.message}`;
        assert.ok(text.startsWith(row.warnings[i] as string), text);
        assert.match(failure.message, /the Ingress's paths answer 503$/u);
        assert.equal(failure.warning, true);
        assert.equal(failure.reason, 'AuthSecretUnusable');
        assert.equal(failure.field, `metadata.annotations[${PREFIX}/auth-secret]`);
      });
    });
  }
});
