// The users of each Ingress with basic/digest authentication
// (features/basic-auth.ts), read from its Secret on every build: Model.credentials,
// which Lua gets by a push (never nginx.conf), so a Secret's new content is no
// reload. As ingress-nginx v1.15.1 (annotations/auth): the Secret is `name` in
// the Ingress's namespace or `namespace/name`, another namespace only with
// allow-cross-namespace-resources; auth-file reads the key `auth`, auth-map
// takes each key as a user and its value as the hash. Whatever makes the users
// unusable (no Secret, no key, a hash no one here can check) leaves the
// Ingress without a set: Lua answers its paths 503, and a warning says why.

import type { V1Secret } from '@kubernetes/client-node';
import { makeWarning } from './failure.ts';
import { isDigestHash, passwordHashForm } from './password-hashes.ts';
import type { BasicAuthConfig, CredentialSet, Failure, IngressRef, Server } from './types.ts';

/** Users per set: far above any htpasswd file in use, and it bounds what one Secret costs every worker. */
export const MAX_USERS = 10_000;
/** What one user name may be: no control character and no `:` (the file's separator), at most 256 bytes. */
// eslint-disable-next-line no-control-regex -- control characters are what the grammar refuses
const USER = /^[^\u0000-\u001f\u007f:]{1,256}$/u;

export interface ResolvedCredentials {
  readonly sets: readonly CredentialSet[];
  readonly failures: readonly Failure[];
}

type Users = Record<string, string>;

/** The Ingresses with authentication, in the order their locations appear, each once. */
function authenticatedIngresses(servers: readonly Server[]): Map<string, { ref: IngressRef; config: BasicAuthConfig }> {
  const found = new Map<string, { ref: IngressRef; config: BasicAuthConfig }>();
  for (const server of servers) {
    for (const location of server.locations) {
      const config = location.policy.basicAuth;
      if (config === undefined || config.type === null || location.ingress === null) continue;
      const id = `${location.ingress.namespace}/${location.ingress.name}`;
      if (!found.has(id)) found.set(id, { ref: location.ingress, config });
    }
  }
  return found;
}

/** `namespace/name` of the Secret, or why it cannot be looked up. */
function secretKey(secret: BasicAuthConfig['secret'], ref: IngressRef, allowCrossNamespace: boolean): { key: string } | { problem: string } {
  if (secret === null) return { problem: 'auth-secret is not set' };
  if (secret === 'invalid') return { problem: 'auth-secret is not a Secret name' };
  const namespace = secret.namespace ?? ref.namespace;
  const { name } = secret;
  if (namespace !== ref.namespace && !allowCrossNamespace) {
    return { problem: `Secret ${namespace}/${name} is in another namespace (allow-cross-namespace-resources is false)` };
  }
  return { key: `${namespace}/${name}` };
}

function decoded(value: unknown): string | null {
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : null;
}

/** The lines NGINX's auth file readers take: `user:hash[:…]`, skipping empty lines and `#` comments. */
function fileLines(text: string): string[] {
  return text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line)).filter((line) => line !== '' && !line.startsWith('#'));
}

/** user → hash, or the first problem. Basic: `user:hash`; digest: `user:realm:HA1` of `realm` only. */
function readUsers(lines: readonly string[], config: BasicAuthConfig): Users | { problem: string } {
  // A Map, then own properties (Object.fromEntries): "__proto__" stays a user name, and the
  // result is a plain object the differ can compare.
  const users = new Map<string, string>();
  for (const line of lines) {
    const [user = '', second = '', third = ''] = line.split(':');
    if (!USER.test(user)) return { problem: 'a user name is empty, too long or holds a control character' };
    let hash: string;
    if (config.type === 'digest') {
      if (second !== config.realm) continue; // htdigest lines of other realms do not apply
      if (!isDigestHash(third)) return { problem: `user ${JSON.stringify(user)} has no MD5 digest (htdigest) for the realm` };
      hash = third.toLowerCase();
    } else {
      // As NGINX: the hash ends at the next ':'; an empty one never matches (ingress-nginx: 401).
      if (second !== '' && passwordHashForm(second) === null) return { problem: `user ${JSON.stringify(user)} has a password hash of a form that cannot be checked` };
      hash = second;
    }
    if (users.has(user)) continue; // NGINX uses the first line of a user
    if (users.size >= MAX_USERS) return { problem: `more than ${MAX_USERS} users` };
    users.set(user, hash);
  }
  return Object.fromEntries(users);
}

/** The users of `secret` by the Ingress's secret type, or why there are none. */
function usersOf(secret: V1Secret, config: BasicAuthConfig): Users | { problem: string } {
  const data = secret.data ?? {};
  if (config.secretType === 'auth-file') {
    const text = decoded(data.auth);
    if (text === null) return { problem: 'the Secret has no key auth' };
    return readUsers(fileLines(text), config);
  }
  // auth-map: ingress-nginx writes `key:value` lines and NGINX reads them as a file.
  const lines = Object.keys(data).sort().flatMap((user) => fileLines(`${user}:${decoded(data[user]) ?? ''}`).slice(0, 1));
  return readUsers(lines, config);
}

/** Indexes Secrets by `namespace/name`. */
function indexSecrets(secrets: readonly V1Secret[]): Map<string, V1Secret> {
  const index = new Map<string, V1Secret>();
  for (const secret of secrets) {
    const { namespace, name } = secret?.metadata ?? {};
    if (typeof namespace === 'string' && typeof name === 'string') index.set(`${namespace}/${name}`, secret);
  }
  return index;
}

/** Model.credentials and the warnings of the Ingresses left without users (their paths answer 503). */
export function resolveCredentials(
  servers: readonly Server[], secrets: readonly V1Secret[], allowCrossNamespace: boolean, prefix: string,
): ResolvedCredentials {
  const wanted = authenticatedIngresses(servers);
  if (wanted.size === 0) return { sets: [], failures: [] };
  const index = indexSecrets(secrets);
  const sets: CredentialSet[] = [];
  const failures: Failure[] = [];
  for (const [id, { ref, config }] of wanted) {
    const deny = (problem: string): void => {
      failures.push(makeWarning(ref, 'AuthSecretUnusable', `metadata.annotations[${prefix}/auth-secret]`, `${problem}; the Ingress's paths answer 503`));
    };
    const key = secretKey(config.secret, ref, allowCrossNamespace);
    if ('problem' in key) { deny(key.problem); continue; }
    const secret = index.get(key.key);
    if (secret === undefined) { deny(`Secret ${key.key} not found`); continue; }
    const users = usersOf(secret, config);
    if ('problem' in users) { deny(`Secret ${key.key}: ${users.problem}`); continue; }
    sets.push(Object.freeze({ id, type: config.type ?? 'basic', realm: config.realm, users: Object.freeze(users) }));
  }
  sets.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { sets, failures };
}
