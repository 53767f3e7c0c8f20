// One Ingress never blocks another (DESIGN): when `nginx -t` refuses a
// configuration, the Ingresses at fault are found (culprit-search.ts: the
// line NGINX names, else bisecting what changed since the last configuration
// it accepted), left out, and the rest is applied. Each one left out is a
// Failure of its own (reason RejectedByNginx: log line, Warning Event,
// metric), and stays out while its object is the one NGINX refused (same
// uid and resourceVersion: a relist does not bring it back); once the
// Ingress changes it is tried again.
// Every model the sync builds goes through build() here, which remembers the
// snapshot and exclusions it came from: a search rebuilds from exactly those.

import type { V1Ingress } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { sortIngressesOldestFirst } from '../model/order.ts';
import type { BuildResult, Failure, IngressRef, Model, Snapshot } from '../model/types.ts';
import { findCulprits, type Refused } from './culprit-search.ts';
import { Superseded } from './reload-scheduler.ts';
import { ConfigRefused, type SyncSteps } from './sync-types.ts';

/** The Failure reason of an Ingress left out because NGINX refused its configuration. */
export const REJECTED_BY_NGINX = 'RejectedByNginx';
/** Default bound of one search: trials are `nginx -t` runs (bisecting 2^14 changed Ingresses, and two more). */
const MAX_TRIALS = 16;
/** Failure.message: at most 200 characters, one line. */
const MESSAGE_MAX = 200;

export interface IngressIsolationOptions {
  readonly steps: SyncSteps;
  /** DataplaneControl.validate; absent: nothing is left out (a refused configuration fails for everyone). */
  readonly validate?: (conf: string, version: string) => Promise<void>;
  /** The model NGINX runs: the last configuration it accepted, or null. */
  readonly running: () => Model | null;
  /** Ingresses were left out: the next sync must build again. */
  readonly onExcluded: () => void;
  readonly logger: Logger;
  readonly maxTrials?: number;
}

export interface IngressIsolation {
  /** steps.build without the Ingresses NGINX refused (unchanged since), plus a failure for each. */
  build(snapshot: Snapshot): BuildResult;
  /**
   * Runs `apply` (start or reload of `conf`, rendered from `model`). When NGINX
   * refuses it, finds the Ingresses at fault and leaves them out: throws
   * Superseded (a sync builds without them), else what `apply` threw.
   */
  guard(model: Model, conf: string, apply: () => Promise<void>): Promise<void>;
}

interface Rejection {
  readonly object: V1Ingress;
  readonly failure: Failure;
}

const EMPTY: ReadonlySet<V1Ingress> = new Set();

const keyOf = (ingress: V1Ingress): string => `${ingress.metadata?.namespace ?? ''}/${ingress.metadata?.name ?? ''}`;
const refKey = (ref: IngressRef): string => `${ref.namespace}/${ref.name}`;

/** The same object as far as the API is concerned: a relist makes new objects of unchanged Ingresses. */
function sameObject(a: V1Ingress, b: V1Ingress): boolean {
  if (a === b) return true;
  const [x, y] = [a.metadata, b.metadata];
  return x?.uid !== undefined && x.uid === y?.uid && x.resourceVersion !== undefined && x.resourceVersion === y?.resourceVersion;
}

/** NGINX's words in a Failure message: one line, at most MESSAGE_MAX characters in all. */
export function rejectionMessage(detail: string): string {
  const lead = 'NGINX refused the configuration of this Ingress; it is left out until it changes: ';
  // eslint-disable-next-line no-control-regex
  const text = detail.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  const room = MESSAGE_MAX - lead.length;
  return lead + (text.length > room ? `${text.slice(0, room - 1)}…` : text);
}

export function createIngressIsolation(options: IngressIsolationOptions): IngressIsolation {
  const { steps, logger } = options;
  const maxTrials = options.maxTrials ?? MAX_TRIALS;
  const rejections = new Map<string, Rejection>();
  /** What each model the sync built came from. */
  const origins = new WeakMap<Model, { snapshot: Snapshot; exclude: ReadonlySet<V1Ingress> }>();
  /** The last exclusion set, the same object while neither the Ingresses nor the rejections change (the builder compares by identity). */
  let memo: { ingresses: Snapshot['ingresses']; generation: number; set: ReadonlySet<V1Ingress> } | null = null;
  /** Moves whenever `rejections` changes. */
  let generation = 0;

  const excludedIn = (snapshot: Snapshot): ReadonlySet<V1Ingress> => {
    if (rejections.size === 0) return EMPTY;
    if (memo?.ingresses === snapshot.ingresses && memo.generation === generation) return memo.set;
    const set = new Set<V1Ingress>();
    const present = new Set<string>();
    for (const ingress of snapshot.ingresses) {
      const key = keyOf(ingress);
      const rejection = rejections.get(key);
      if (rejection === undefined) continue;
      present.add(key);
      if (sameObject(rejection.object, ingress)) {
        set.add(ingress);
      } else {
        rejections.delete(key);
        generation += 1;
        logger.info({ ingress: key }, 'an Ingress NGINX refused has changed; it is tried again');
      }
    }
    for (const key of [...rejections.keys()]) {
      if (!present.has(key) && rejections.delete(key)) generation += 1;
    }
    memo = { ingresses: snapshot.ingresses, generation, set };
    return set;
  };

  /** The Ingresses of `snapshot` that differ from those of the last configuration NGINX accepted, oldest first. */
  const changedSinceGood = (snapshot: Snapshot, exclude: ReadonlySet<V1Ingress>): V1Ingress[] => {
    const good = options.running();
    const accepted = new Map((good ? origins.get(good)?.snapshot.ingresses ?? [] : []).map((ingress) => [keyOf(ingress), ingress]));
    const changed = snapshot.ingresses.filter((ingress) => {
      const before = accepted.get(keyOf(ingress));
      return !exclude.has(ingress) && (before === undefined || !sameObject(before, ingress));
    });
    return sortIngressesOldestFirst(changed);
  };

  const search = async (refused: ConfigRefused, model: Model, conf: string, validate: NonNullable<IngressIsolationOptions['validate']>) => {
    const origin = origins.get(model);
    if (origin === undefined) return null;
    const byKey = new Map(origin.snapshot.ingresses.map((ingress) => [keyOf(ingress), ingress]));
    const refusal = (err: ConfigRefused, built: Model, text: string): Refused<V1Ingress> => {
      const refs = err.line === null || steps.owners === undefined ? [] : steps.owners(built, text, err.line);
      const owners = refs.map((ref) => byKey.get(refKey(ref))).filter((ingress) => ingress !== undefined && !origin.exclude.has(ingress));
      return { detail: err.detail, owners: owners as V1Ingress[] };
    };
    return findCulprits<V1Ingress>({
      refused: refusal(refused, model, conf),
      changed: changedSinceGood(origin.snapshot, origin.exclude),
      maxTrials,
      async trial(exclude) {
        const built = steps.build(origin.snapshot, new Set([...origin.exclude, ...exclude])).model;
        const rendered = steps.render(built);
        try {
          await validate(rendered.conf, rendered.version);
          return null;
        } catch (err) {
          if (err instanceof ConfigRefused) return refusal(err, built, rendered.conf);
          throw err;
        }
      },
    });
  };

  return {
    build(snapshot) {
      const exclude = excludedIn(snapshot);
      const built = steps.build(snapshot, exclude);
      const result = exclude.size === 0 ? built : {
        model: built.model,
        failures: [...built.failures, ...[...exclude].map((ingress) => (rejections.get(keyOf(ingress)) as Rejection).failure)],
      };
      origins.set(result.model, { snapshot, exclude });
      return result;
    },
    async guard(model, conf, apply) {
      try {
        await apply();
        return;
      } catch (err) {
        if (!(err instanceof ConfigRefused) || options.validate === undefined) throw err;
        const began = Date.now();
        const found = await search(err, model, conf, options.validate).catch((searchErr: unknown) => {
          logger.warn({ err: searchErr }, 'could not look for the Ingresses NGINX refuses');
          return null;
        });
        const ms = Date.now() - began;
        if (found?.end === 'accepted' && found.culprits.length === 0) {
          // The refusal has passed (the whole configuration was just accepted, so this applies it without parsing it again).
          logger.info({ trials: found.trials, ms }, 'NGINX accepts the configuration it refused a moment ago; applying it');
          await apply();
          return;
        }
        // A search that ended on a refusal nothing explains (the runtime broke meanwhile?) may have blamed innocents.
        if (found === null || found.culprits.length === 0 || found.end === 'unexplained') {
          if (found !== null) logger.warn({ trials: found.trials, ms }, 'NGINX refuses the configuration, and not because of an Ingress that changed');
          throw err;
        }
        for (const { ingress, detail, found: how } of found.culprits) {
          const ref = { namespace: ingress.metadata?.namespace ?? '', name: ingress.metadata?.name ?? '' };
          rejections.set(keyOf(ingress), { object: ingress, failure: { ingress: ref, reason: REJECTED_BY_NGINX, field: 'metadata', message: rejectionMessage(detail) } });
          logger.warn({ ingress: keyOf(ingress), found: how, nginx: detail }, 'NGINX refused an Ingress; it is left out, the others are applied');
        }
        generation += 1;
        logger.info({ left: found.culprits.length, trials: found.trials, end: found.end, ms }, 'configuration built again without the Ingresses NGINX refused');
        options.onExcluded();
        throw new Superseded(`left out ${found.culprits.length} Ingress(es) NGINX refused`);
      }
    },
  };
}
