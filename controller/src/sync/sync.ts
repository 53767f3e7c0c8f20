// The one orchestrator: snapshot → build → decide → apply, run by a coalescing
// queue. It knows the model types and the decision; every other step is
// handed in by main as a function, so this file has no I/O of its own.
//
// Apply order matters: dynamic state is pushed BEFORE a reload, so the new
// workers never meet a backend they do not know. A reload runs in the
// background: endpoint-only changes keep flowing while NGINX validates and
// reloads, and a reload wanted meanwhile starts when the current one ends.

import type { Logger } from 'pino';
import { decideApply, type DynamicPush } from '../diff/decide.ts';
import type { BackendPatch, BuildResult, DynamicBackend, DynamicCertificates, Failure, Model, Snapshot } from '../model/types.ts';
import { createSyncQueue } from './queue.ts';

/** A data-plane failure that says nothing about the configuration (e.g. NGINX is restarting): retry soon, do not hold the config as bad. */
export class RetryLater extends Error {}

/** What the sync needs from the data plane (implemented by main over nginx/). */
export interface DataPlane {
  /** True once NGINX runs some configuration. */
  started(): boolean;
  /** Validate, start NGINX and confirm it serves `version`. */
  start(conf: string, version: string): Promise<void>;
  /** Validate, reload and confirm the new workers serve `version`; throws and keeps the old config on failure. */
  reload(conf: string, version: string): Promise<void>;
  /** POST the full dynamic state to Lua. */
  pushBackends(backends: readonly DynamicBackend[]): Promise<void>;
  /**
   * PATCH only what changed since the state last pushed (absent: every push
   * is a full POST). Used only while that state is known to be in Lua.
   */
  patchBackends?(patch: BackendPatch): Promise<void>;
  /** POST every certificate and the host map to Lua (only when they changed or Lua lost them). */
  pushCertificates(certificates: DynamicCertificates): Promise<void>;
}

/** The pure steps, handed in by main. */
export interface SyncSteps {
  snapshot(): Snapshot;
  build(snapshot: Snapshot): BuildResult;
  render(model: Model): { conf: string; version: string };
}

/** Outcome of one sync, for logs and metrics. */
export type SyncResult = 'skip' | 'dynamic' | 'reload' | 'reload-queued' | 'known-bad';

/** Why a sync did what it did, and where its time went: the sync log line and metrics. */
export interface SyncDetail {
  /** `static change` (nginx.conf differs), `endpoints` (only dynamic parts), `data plane empty`, or `no change`. */
  why: string;
  /** Backends whose dynamic part changed, sorted (empty for skip). */
  changed: readonly string[];
  buildMs: number;
  renderMs: number;
  /** Pushing to Lua, plus starting NGINX on the first sync (a reload runs in the background after). */
  applyMs: number;
  /** How the backends went to Lua: the full set (POST) or only the changes (PATCH); absent when nothing was pushed. */
  push?: 'full' | 'patch';
}

export interface SyncHooks {
  /** Every sync's failures (the full current set). */
  onFailures?(failures: readonly Failure[]): void;
  /** After each sync, with its outcome, duration and detail. */
  onSynced?(result: SyncResult, ms: number, detail: SyncDetail): void;
  /** A sync threw (it is retried with backoff). */
  onSyncFailed?(err: unknown): void;
  /** A reload was refused or failed; NGINX keeps the last good configuration. */
  onReloadFailed?(err: unknown, model: Model): void;
  /** A reload went live. */
  onReloaded?(model: Model): void;
}

export interface SyncOptions {
  readonly steps: SyncSteps;
  readonly dataplane: DataPlane;
  readonly logger: Logger;
  readonly minIntervalMs: number;
  /** How long a configuration that failed to reload is not retried unless it changes (ms). */
  readonly badConfigHoldMs?: number;
  readonly hooks?: SyncHooks;
  readonly now?: () => number;
}

export interface Sync {
  /** Ask for a sync (any watched object changed). */
  kick(): void;
  /** The data plane lost its dynamic state (NGINX restarted): push everything again. */
  dataplaneReset(): void;
  /** Resolves when no sync or reload is running or pending. */
  idle(): Promise<void>;
  stop(): Promise<void>;
  /** The model whose configuration NGINX confirmed running, or null. */
  running(): Model | null;
}

export function createSync(options: SyncOptions): Sync {
  const { steps, dataplane, logger, hooks = {} } = options;
  const now = options.now ?? Date.now;
  const holdMs = options.badConfigHoldMs ?? 30_000;
  let current: Model | null = null; // in effect: static part running or reloading, dynamic part pushed
  let confirmed: Model | null = null; // static part confirmed running
  let dataplaneEmpty = false;
  let pushed: Model | null = null; // whose dynamic part Lua holds (null: unknown → full POST)
  let inFlight: Promise<void> | null = null;
  let badVersion: { version: string; until: number } | null = null;
  let retryAfter = 0; // after RetryLater: no reload attempt before this time

  const pushBackends = async ({ backends, patch }: DynamicPush): Promise<void> => {
    if (patch === null || dataplane.patchBackends === undefined) return dataplane.pushBackends(backends);
    if (patch.set.length > 0 || patch.remove.length > 0) await dataplane.patchBackends(patch);
  };
  const push = async (decision: DynamicPush, model: Model, detail: SyncDetail): Promise<void> => {
    detail.push = decision.patch === null || dataplane.patchBackends === undefined ? 'full' : 'patch';
    try {
      pushed = null;
      await pushBackends(decision);
      if (decision.certificates !== null) await dataplane.pushCertificates(decision.certificates);
      dataplaneEmpty = false;
      pushed = model;
    } catch (err) {
      dataplaneEmpty = true; // unknown state: the next sync pushes everything again
      throw err;
    }
  };

  const startReload = (model: Model, conf: string, version: string): void => {
    current = model;
    inFlight = dataplane.reload(conf, version).then(
      () => {
        confirmed = model;
        badVersion = null;
        hooks.onReloaded?.(model);
      },
      (err: unknown) => {
        current = confirmed;
        if (err instanceof RetryLater) {
          logger.warn({ err: err.message, version }, 'reload postponed');
          retryAfter = now() + 1000;
          setTimeout(() => queue.kick(), 1000).unref();
          return;
        }
        badVersion = { version, until: now() + holdMs };
        logger.error({ err, version }, 'reload failed; NGINX keeps the last good configuration');
        hooks.onReloadFailed?.(err, model);
        setTimeout(() => queue.kick(), holdMs).unref(); // try the same configuration again later
      },
    ).finally(() => {
      inFlight = null;
      queue.kick();
    });
  };

  const syncOnce = async (detail: SyncDetail): Promise<SyncResult> => {
    let mark = now();
    const lap = (): number => { const at = now(); const ms = at - mark; mark = at; return ms; };
    const { model, failures } = steps.build(steps.snapshot());
    detail.buildMs = lap();
    hooks.onFailures?.(failures);
    const wasEmpty = dataplaneEmpty;
    const decision = decideApply({ model: current, dataplaneEmpty, pushed }, model);
    if (decision.kind === 'skip') return 'skip';
    detail.changed = decision.changed;
    if (decision.kind === 'dynamic') {
      detail.why = wasEmpty ? 'data plane empty' : 'endpoints';
      await push(decision, model, detail);
      detail.applyMs = lap();
      current = model;
      return 'dynamic';
    }
    detail.why = 'static change';
    const { conf, version } = steps.render(model);
    detail.renderMs = lap();
    if (!dataplane.started()) {
      await dataplane.start(conf, version);
      await push(decision, model, detail);
      current = confirmed = model;
      detail.applyMs = lap();
      hooks.onReloaded?.(model);
      return 'reload';
    }
    await push(decision, model, detail);
    detail.applyMs = lap();
    if (inFlight || now() < retryAfter) return 'reload-queued';
    if (badVersion && badVersion.version === version && now() < badVersion.until) return 'known-bad';
    startReload(model, conf, version);
    return 'reload';
  };

  const queue = createSyncQueue(async () => {
    const started = now();
    const detail: SyncDetail = { why: 'no change', changed: [], buildMs: 0, renderMs: 0, applyMs: 0 };
    const result = await syncOnce(detail);
    const ms = now() - started;
    hooks.onSynced?.(result, ms, detail);
    // At most 20 names: one rolling deploy must not make a megabyte log line.
    const line = { result, why: detail.why, changed: detail.changed.slice(0, 20), changedCount: detail.changed.length,
      ms, buildMs: detail.buildMs, renderMs: detail.renderMs, applyMs: detail.applyMs, push: detail.push };
    if (result !== 'skip') logger.info(line, 'sync');
    else logger.debug(line, 'sync');
  }, { minIntervalMs: options.minIntervalMs }, (err) => {
    hooks.onSyncFailed?.(err);
    logger.error({ err }, 'sync failed; retrying');
  });

  return {
    kick: () => queue.kick(),
    dataplaneReset(): void {
      dataplaneEmpty = true;
      queue.kick();
    },
    async idle(): Promise<void> {
      do {
        await queue.idle();
        await inFlight;
      } while (inFlight);
      await queue.idle();
    },
    async stop(): Promise<void> {
      await queue.stop();
      await inFlight;
    },
    running: () => confirmed,
  };
}
