// upstream-hash-by, -subset, -subset-size: consistent hashing of a backend
// (ingress-nginx's chash and chashsubset balancers). Per Ingress, applied per
// Backend as Backend.hash: when Ingresses routing to one Service port
// disagree, the oldest Ingress's value wins (model/backends.ts). Dynamic: Lua
// builds the ring from the pushed hash (lua/resty_ingress/chash.lua), so a
// change is a push, never a reload. ingress-nginx also decodes ConfigMap keys
// of these names but never uses them (catalogue: ignored).

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { UpstreamHashConfig } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { atoi, parseBoolean } from './values.ts';

/** ingress-nginx's validator of upstream-hash-by (spaces removed first): letters, digits, `-_${}`. */
const INGRESS_NGINX_HASH_BY = /^[A-Za-z0-9_${}-]*$/u;
/**
 * What this controller takes: `$name` / `${name}` (name of [A-Za-z0-9_], as ingress-nginx's
 * Lua reads variables) and literal text of [A-Za-z0-9_-], one after another. Lua checks the same
 * grammar again when it receives it (chash.lua parse_key).
 */
const HASH_BY = /^(?:\$\{[A-Za-z0-9_]+\}|\$[A-Za-z0-9_]+|[A-Za-z0-9_-]+)+$/u;
/** The longest template Lua accepts. */
const MAX_HASH_BY = 256;
/** The largest subset Lua accepts. */
export const MAX_SUBSET_SIZE = 1000;

/**
 * Variables a request has in the balancer phase that are not in NGINX's variables hash under
 * their own name: reading an unknown name logs an [error] for every request, so a name must be
 * one of these prefixes or one of the names below.
 */
const VARIABLE_PREFIXES = ['http_', 'arg_', 'cookie_'];
const VARIABLES: ReadonlySet<string> = new Set([
  'request_uri', 'uri', 'document_uri', 'args', 'query_string', 'is_args', 'request', 'request_method',
  'remote_addr', 'binary_remote_addr', 'remote_port', 'remote_user', 'realip_remote_addr', 'proxy_protocol_addr',
  'host', 'hostname', 'server_name', 'server_addr', 'server_port', 'scheme', 'https', 'server_protocol',
  'content_type', 'content_length', 'request_id', 'proxy_add_x_forwarded_for', 'ssl_server_name',
  'ssl_client_s_dn', 'ssl_client_fingerprint', 'proxy_upstream_name', 'resty_route',
]);

function knownVariable(name: string): boolean {
  return /^\d+$/u.test(name) || VARIABLES.has(name) || VARIABLE_PREFIXES.some((prefix) => name.startsWith(prefix) && name.length > prefix.length);
}

function parseHashBy(raw: string): Checked<string | null> {
  // ingress-nginx validates the value without its spaces and uses it trimmed.
  const ingressNginxTakes = INGRESS_NGINX_HASH_BY.test(raw.replaceAll(' ', ''));
  const value = raw.trim();
  if (!HASH_BY.test(value) || value.length > MAX_HASH_BY) {
    const reason = `expected NGINX variables ($name or \${name}) and text of [A-Za-z0-9_-], at most ${MAX_HASH_BY} characters`;
    return ingressNginxTakes ? unsupported(reason) : refuse(reason);
  }
  const unknown = [...value.matchAll(/\$\{?([A-Za-z0-9_]+)/gu)].map((m) => m[1] as string).filter((name) => !knownVariable(name));
  if (unknown.length > 0) return unsupported(`unknown NGINX variable $${unknown[0] as string} (known: http_*, arg_*, cookie_*, request_uri, remote_addr, host, …)`);
  return accept(value);
}

function parseSubsetSize(raw: string): Checked<number> {
  const read = atoi(raw);
  if (read === null) return refuse('expected an integer');
  // ingress-nginx: 0 means the default.
  if (read === 0n) return accept(3);
  if (read < 1n || read > BigInt(MAX_SUBSET_SIZE)) return unsupported(`expected 1 to ${MAX_SUBSET_SIZE} endpoints per subset`);
  return accept(Number(read));
}

export const upstreamHashFeature = defineFeature({
  name: 'upstreamHash',
  title: 'Consistent hashing',
  doc: 'upstream-hash-by sends the requests with the same key (NGINX variables and text) to the same endpoint; '
    + 'when one endpoint of n goes, only its ~1/n of the keys move. With upstream-hash-by-subset the key picks a '
    + 'subset of upstream-hash-by-subset-size endpoints, then a random one of it. Applied per backend (the oldest '
    + 'Ingress wins when several route to one Service port), by Lua: a change is never a reload.',
  output: { kind: 'lua' },
  defaults: { by: null, subset: false, subsetSize: 3 },
  keys: [
    field<UpstreamHashConfig, 'by'>('by', parseHashBy, {
      annotation: { name: 'upstream-hash-by', scope: 'location', risk: 'High' },
      defaultText: '',
      doc: 'The key: NGINX variables and text, e.g. `$request_uri`, `$http_x_user$arg_id`, `${host}-x`.',
      difference: 'only variables a request has in the balancer phase (http_*, arg_*, cookie_*, request_uri, remote_addr, host and the like); a retry goes to the next endpoint on the ring, not the same one',
    }),
    field<UpstreamHashConfig, 'subset'>('subset', parseBoolean, {
      annotation: { name: 'upstream-hash-by-subset', scope: 'location', risk: 'Low' },
      defaultText: 'false',
      doc: 'Hash to a subset of endpoints, then pick one of it at random.',
    }),
    field<UpstreamHashConfig, 'subsetSize'>('subsetSize', parseSubsetSize, {
      annotation: { name: 'upstream-hash-by-subset-size', scope: 'location', risk: 'Low' },
      defaultText: '3',
      doc: 'Endpoints per subset (0 means 3).',
      difference: `at most ${MAX_SUBSET_SIZE}`,
    }),
  ],
  proof: ['controller/src/model/features/upstream-hash.test.ts', 'controller/src/model/backend-balancing.test.ts', 'lua/chash.test.ts', 'e2e/upstream-hash.test.ts'],
});
