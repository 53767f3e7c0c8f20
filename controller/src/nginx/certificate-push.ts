// Certificates to Lua in bounded requests (PATCH /configuration/certificates,
// lua/resty_ingress/certificate_api.lua). One POST of every certificate once
// grew past the endpoint's 21 MiB body limit (~40 Secrets of long chains) and
// failed every sync. Here only what changed goes, in PATCHes of at most
// CERTIFICATE_BATCH_BYTES, in an order where every state Lua passes through
// is one a handshake can use: new and rotated certificates, then the hosts
// and the default that name them, then the hosts and certificates that went.
//
// What Lua holds is read first (GET: ids, hosts, default, never a PEM). While
// Lua's store version is the one the last push left, the pusher knows which
// PEMs Lua has (by fingerprint) and sends only the changed ones; otherwise
// (NGINX restarted, a push failed) it sends every certificate again, and Lua
// keeps the stamp of an unchanged one, so workers do not parse it again.
// Private keys go only to the loopback status server; errors quote Lua's
// reason (ids, never PEM content).

import { createHash } from 'node:crypto';
import type { ClientAuthState, DynamicCertificates } from '../model/types.ts';
import { getCertificates, type LoadedCertificates } from './lua-certificates.ts';
import { LuaClientError, type LuaClientOptions } from './lua-client.ts';
import { luaRequest, postDocument } from './lua-request.ts';

const PATH = '/configuration/certificates';
/** Far below the endpoint's 21 MiB, and a bounded pause for the worker that parses it. */
export const CERTIFICATE_BATCH_BYTES = 4 * 1024 * 1024;
/** Host entries per request (~50 bytes each). */
export const HOST_BATCH_SIZE = 20_000;

type Item = DynamicCertificates['certificates'][number];

/** One PATCH body (CONTRACTS.md). */
export interface CertificatePatch {
  readonly set?: readonly Item[];
  readonly remove?: readonly string[];
  readonly hosts?: Readonly<Record<string, string | null>>;
  readonly defaultCertificate?: string | null;
}

/** What Lua holds, as far as this pusher knows: fingerprints only for PEMs it sent itself. */
export interface Held {
  readonly version: number;
  readonly fingerprints: ReadonlyMap<string, string>;
  readonly hosts: ReadonlyMap<string, string>;
  readonly defaultCertificate: string | null;
}

const fingerprint = (item: Item): string => createHash('sha256').update(item.cert).update('\0').update(item.key).digest('hex');

function fromSummary(loaded: LoadedCertificates): Held {
  return {
    version: loaded.version,
    // Ids with an empty fingerprint: stored, content unknown (sent again if still wanted).
    fingerprints: new Map(loaded.certificates.map((item) => [item.id, ''])),
    hosts: new Map(loaded.hosts.map((item) => [item.host, item.certificate])),
    defaultCertificate: loaded.defaultCertificate,
  };
}

/** `items` in groups of at most `limit` (by `size`; an item larger than the limit goes alone). */
function batches<T>(items: readonly T[], limit: number, size: (item: T) => number): T[][] {
  const groups: T[][] = [];
  let current: T[] = [];
  let used = 0;
  for (const item of items) {
    const bytes = size(item);
    if (current.length > 0 && used + bytes > limit) {
      groups.push(current);
      current = [];
      used = 0;
    }
    current.push(item);
    used += bytes;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** The PATCHes that take Lua from `held` to `desired`, in a safe order. Pure. */
export function planCertificatePatches(held: Held, desired: DynamicCertificates): CertificatePatch[] {
  const patches: CertificatePatch[] = [];
  const changed = desired.certificates.filter((item) => held.fingerprints.get(item.id) !== fingerprint(item));
  // JSON size of an item, near enough: PEM newlines become two characters.
  const itemBytes = (item: Item): number => item.id.length + item.cert.length * 1.05 + item.key.length * 1.05 + 40;
  for (const group of batches(changed, CERTIFICATE_BATCH_BYTES, itemBytes)) patches.push({ set: group });
  const wanted = Object.entries(desired.hosts);
  const setHosts = wanted.filter(([host, id]) => held.hosts.get(host) !== id);
  const hostGroups = batches(setHosts, HOST_BATCH_SIZE, () => 1);
  hostGroups.forEach((group, index) => {
    const last = index === hostGroups.length - 1 && desired.defaultCertificate !== held.defaultCertificate;
    patches.push({ hosts: Object.fromEntries(group), ...(last ? { defaultCertificate: desired.defaultCertificate } : {}) });
  });
  if (hostGroups.length === 0 && desired.defaultCertificate !== held.defaultCertificate) {
    patches.push({ defaultCertificate: desired.defaultCertificate });
  }
  const goneHosts = [...held.hosts.keys()].filter((host) => !Object.hasOwn(desired.hosts, host));
  for (const group of batches(goneHosts, HOST_BATCH_SIZE, () => 1)) {
    patches.push({ hosts: Object.fromEntries(group.map((host) => [host, null])) });
  }
  const keep = new Set(desired.certificates.map((item) => item.id));
  const goneIds = [...held.fingerprints.keys()].filter((id) => !keep.has(id));
  for (const group of batches(goneIds, HOST_BATCH_SIZE, () => 1)) patches.push({ remove: group });
  return patches;
}

/** What Lua holds once `desired` is through, at store version `version`. */
export function heldAfter(desired: DynamicCertificates, version: number): Held {
  return {
    version,
    fingerprints: new Map(desired.certificates.map((item) => [item.id, fingerprint(item)])),
    hosts: new Map(Object.entries(desired.hosts)),
    defaultCertificate: desired.defaultCertificate,
  };
}

async function patchCertificates(baseUrl: string, patch: CertificatePatch, opts: LuaClientOptions): Promise<number> {
  const result = await luaRequest(baseUrl, PATH, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(patch) }, opts);
  const reason = result.text.trim().slice(0, 300);
  if (result.status === 400) throw new LuaClientError('LUA_REJECTED', `PATCH ${PATH} refused: ${reason}`, 400);
  if (result.status !== 200) throw new LuaClientError('LUA_HTTP_ERROR', `PATCH ${PATH}: HTTP ${result.status}: ${reason}`, result.status);
  const match = /^version (\d+)\s*$/u.exec(result.text);
  if (!match) throw new LuaClientError('LUA_BAD_RESPONSE', `PATCH ${PATH}: unexpected answer ${result.text.slice(0, 100)}`, 200);
  return Number(match[1]);
}

const CLIENT_AUTH_PATH = '/configuration/client-auth';

/** The body of POST /configuration/client-auth (lua/resty_ingress/client_auth_api.lua): objects keyed by CA id and host. */
export function luaClientAuth(state: ClientAuthState | undefined): unknown {
  return {
    cas: Object.fromEntries((state?.cas ?? []).map((ca) => [ca.id, ca.pem])),
    hosts: Object.fromEntries((state?.hosts ?? []).map(({ host, ...settings }) => [host, settings])),
  };
}

export interface CertificatePusher {
  /** Brings Lua to `desired` in bounded PATCHes; resolves with Lua's certificate store version. */
  push(desired: DynamicCertificates): Promise<number>;
}

export function createCertificatePusher(baseUrl: string, opts: LuaClientOptions = {}): CertificatePusher {
  let held: Held | null = null;
  return {
    async push(desired) {
      const loaded = await getCertificates(baseUrl, opts);
      const known = held !== null && held.version === loaded.version ? held : fromSummary(loaded);
      held = null; // unknown until every PATCH is through
      let version = loaded.version;
      for (const patch of planCertificatePatches(known, desired)) version = await patchCertificates(baseUrl, patch, opts);
      // After the certificates: the client-auth state is small (CAs and modes), sent whole every time.
      await postDocument(baseUrl, CLIENT_AUTH_PATH, luaClientAuth(desired.clientAuth), opts);
      held = heldAfter(desired, version);
      return version;
    },
  };
}
