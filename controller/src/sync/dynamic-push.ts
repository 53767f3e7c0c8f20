// What Lua applies at run time, pushed without a reload: one row per kind of
// state in PUSH_KINDS (backends, certificates, route policies, users, and the TCP/UDP
// and SSL passthrough endpoints njs holds in stream {}). A new kind is one more row
// (its part of DynamicPush comes from the differ); the push order, the sync
// log line's `why` and the "Lua lost its state" bookkeeping follow from the
// table.

import type { DynamicPush } from '../diff/decide.ts';
import type { Backend, Model } from '../model/types.ts';
import type { DataplaneControl, SyncDetail } from './sync-types.ts';

/** One kind of dynamic state. */
interface PushKind {
  /** Its name in the sync log line's `why`. */
  readonly name: string;
  /**
   * True when its failure must not stop the rest: the other kinds (and the reload after them)
   * go on, and it is pushed again on the next sync (DynamicPusher.deferred()).
   */
  readonly isolated?: boolean;
  /** True when `push` carries a change of this kind. */
  carried(push: DynamicPush): boolean;
  /**
   * Sends it (or nothing, when it did not change). Resolves false when the data plane cannot take
   * it yet (stream endpoints before the first configuration with a stream {}): it is then pushed
   * again on the next sync, which the end of the reload kicks.
   */
  send(push: DynamicPush, dataplane: DataplaneControl, detail: SyncDetail): Promise<boolean | void>;
  /** For an isolated kind: `model` with this kind's part marked as not held, so the differ sends it again. */
  forget?(model: Model): Model;
}

/** Not a TLS state any model has: the differ pushes the certificates again. */
const UNKNOWN_TLS: Model['tls'] = Object.freeze({ certificates: [], hosts: [], defaultCertificate: '\u0000not pushed' });

/** In push order. */
const PUSH_KINDS: readonly PushKind[] = [
  {
    name: 'endpoints',
    carried: (push) => push.changed.length > 0,
    async send({ backends, patch }, dataplane, detail) {
      // The full set (POST) while Lua's state is unknown, else only what changed (PATCH).
      const full = patch === null || dataplane.patchBackends === undefined;
      detail.push = full ? 'full' : 'patch';
      if (full) await dataplane.pushBackends(backends);
      else if (patch.set.length > 0 || patch.remove.length > 0) await dataplane.patchBackends?.(patch);
    },
  },
  {
    // A certificate Lua refuses, or a full dict, costs TLS only (hosts keep what Lua has, or
    // the default certificate); it never holds back endpoints, routes or a reload.
    name: 'certificates',
    isolated: true,
    forget: (model) => ({ ...model, tls: UNKNOWN_TLS }),
    carried: (push) => push.certificates !== null,
    async send({ certificates }, dataplane) {
      if (certificates !== null) await dataplane.pushCertificates(certificates);
    },
  },
  {
    // After the backends: a canary split names a backend Lua must already have.
    name: 'routes',
    carried: (push) => push.routes !== null,
    async send({ routes }, dataplane) {
      if (routes !== null) await dataplane.pushRoutes(routes);
    },
  },
  {
    // Basic/digest users (model/credentials.ts): a Secret's change is this push, never a reload.
    name: 'credentials',
    carried: (push) => push.credentials !== undefined && push.credentials !== null,
    async send({ credentials }, dataplane) {
      if (credentials !== undefined && credentials !== null) await dataplane.pushCredentials?.(credentials);
    },
  },
  {
    // TCP/UDP and SSL passthrough endpoints, fed to njs in stream {}: a feed that fails costs those only.
    name: 'stream endpoints',
    isolated: true,
    forget: (model) => ({
      ...model,
      streams: (model.streams ?? []).map((service) => ({ ...service, endpoints: UNKNOWN_ENDPOINTS })),
      ...(model.sslPassthrough === undefined ? {} : { sslPassthrough: model.sslPassthrough.map((host) => ({ ...host, endpoints: UNKNOWN_ENDPOINTS })) }),
    }),
    carried: (push) => push.streams !== undefined && push.streams !== null,
    async send({ streams }, dataplane) {
      if (streams === undefined || streams === null) return true;
      if (dataplane.pushStreams === undefined) return false;
      return await dataplane.pushStreams(streams);
    },
  },
];

/** Not an endpoint list any model has: the differ feeds the stream endpoints again. */
const UNKNOWN_ENDPOINTS: Model['backends'][number]['endpoints'] = Object.freeze([Object.freeze({ address: '\u0000not pushed', port: 0 })]);

/** What a dynamic push carries, for the sync log line: `endpoints`, `certificates`, `routes`, or several joined by `and`. */
export function pushReason(push: DynamicPush): string {
  const names = PUSH_KINDS.filter((kind) => kind.carried(push)).map((kind) => kind.name);
  return names.length > 0 ? names.join(' and ') : 'no change';
}

/** Pushes to Lua and remembers what Lua holds (the differ diffs against it). */
export interface DynamicPusher {
  /** Sends every kind `push` carries; on failure Lua's state counts as lost (the next push is full). */
  push(push: DynamicPush, model: Model, detail: SyncDetail): Promise<void>;
  /** The model whose dynamic part Lua holds; null when unknown. */
  held(): Model | null;
  /** True when Lua lost its state (NGINX restarted) or a push failed: everything goes again. */
  lost(): boolean;
  /** NGINX lost its dynamic state. */
  reset(): void;
  /** `backends` were PATCHed into Lua outside push() (pending-preview.ts): Lua holds them too; the differ sets or removes them as the next model says. */
  adopt(backends: readonly Backend[]): void;
  /** Throws when the last push applied everything but an isolated kind (the sync then retries with backoff). */
  throwDeferred(): void;
}

export function createDynamicPusher(dataplane: DataplaneControl): DynamicPusher {
  let held: Model | null = null;
  let lost = false;
  let deferred: { readonly kind: string; readonly err: unknown } | null = null;
  return {
    async push(push, model, detail): Promise<void> {
      held = null;
      deferred = null;
      let holds = model;
      try {
        for (const kind of PUSH_KINDS) {
          if (!kind.isolated) {
            await kind.send(push, dataplane, detail);
            continue;
          }
          try {
            if ((await kind.send(push, dataplane, detail)) === false) holds = kind.forget?.(holds) ?? holds;
          } catch (err) {
            deferred ??= { kind: kind.name, err };
            holds = kind.forget?.(holds) ?? holds;
          }
        }
        lost = false;
        held = holds;
      } catch (err) {
        lost = true; // unknown state: the next sync pushes everything again
        throw err;
      }
    },
    held: () => held,
    lost: () => lost,
    reset(): void {
      lost = true;
    },
    adopt(backends): void {
      if (held === null || backends.length === 0) return;
      const added = new Set(backends.map((backend) => backend.name));
      const merged = [...held.backends.filter((backend) => !added.has(backend.name)), ...backends];
      held = { ...held, backends: merged.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
    },
    throwDeferred(): void {
      if (deferred === null) return;
      const { kind, err } = deferred;
      deferred = null;
      throw new Error(`${kind} not pushed (everything else was applied): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    },
  };
}
