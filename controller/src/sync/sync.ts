// The one orchestrator: snapshot → build → decide → apply, run by a coalescing
// queue. It knows the model types and the decision; every other step is
// handed in by main as a function, so this file has no I/O of its own.
//
// Apply order matters: dynamic state is pushed BEFORE a reload, so the new
// workers never meet a backend they do not know. A reload runs in the
// background: endpoint-only changes keep flowing while NGINX validates and
// reloads, and a reload wanted meanwhile starts when the current one ends.

import { decideApply, sameStaticPart, type DynamicPush } from '../diff/decide.ts';
import type { BuildResult, Model } from '../model/types.ts';
import { createSyncQueue } from './queue.ts';
import type { Sync, SyncDetail, SyncOptions, SyncResult } from './sync-types.ts';

export type { DataPlane, Sync, SyncDetail, SyncHooks, SyncOptions, SyncResult, SyncSteps } from './sync-types.ts';

/** A data-plane failure that says nothing about the configuration (e.g. NGINX is restarting): retry soon, do not hold the config as bad. */
export class RetryLater extends Error {}

/** What a dynamic push carries, for the sync log line: `endpoints`, `certificates` or `endpoints and certificates`. */
export function dynamicReason(push: DynamicPush): string {
  const parts: string[] = [];
  if (push.changed.length > 0) parts.push('endpoints');
  if (push.certificates !== null) parts.push('certificates');
  return parts.length > 0 ? parts.join(' and ') : 'no change';
}

/** The sync over `options.steps` and `options.dataplane`; nothing runs until kick(). */
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
  const settleMs = options.reloadSettleMs ?? 0;
  let staticSince: number | null = null; // when the pending static change was first seen
  let settling: { timer: NodeJS.Timeout; done: Promise<void>; end: () => void } | null = null;
  let validatingAhead: Promise<void> | null = null;
  let lastRender: { model: Model; conf: string; version: string } | null = null;
  // Bumped by every kick from outside (an object changed); the sync's own kicks (end of a
  // settle window, of a reload, retries) leave it, and then the last build still holds.
  let generation = 0;
  let lastBuild: { generation: number; result: BuildResult } | null = null;

  const build = (): BuildResult => {
    if (lastBuild?.generation !== generation) lastBuild = { generation, result: steps.build(steps.snapshot()) };
    return lastBuild.result;
  };

  /** steps.render, reused while the static part stays the same: a reload after its settle window was rendered ahead. */
  const render = (model: Model): { conf: string; version: string } => {
    if (lastRender === null || !sameStaticPart(lastRender.model, model)) lastRender = { model, ...steps.render(model) };
    return lastRender;
  };

  /** Kicks a sync once the settle window has passed; idle() waits for it. */
  const settleFor = (ms: number): void => {
    if (settling) return;
    let end = (): void => undefined;
    const done = new Promise<void>((resolve) => { end = resolve; });
    const timer = setTimeout(() => { settling = null; end(); queue.kick(); }, ms);
    settling = { timer, done, end };
  };

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
    const { model, failures } = build();
    detail.buildMs = lap();
    hooks.onFailures?.(failures);
    const wasEmpty = dataplaneEmpty;
    const decision = decideApply({ model: current, dataplaneEmpty, pushed }, model);
    if (decision.kind !== 'reload') staticSince = null;
    if (decision.kind === 'skip') return 'skip';
    detail.changed = decision.changed;
    if (decision.kind === 'reload' && dataplane.started()) {
      staticSince ??= now();
      const waitMs = staticSince + settleMs - now();
      if (waitMs > 0) {
        await push(decision, model, detail); // new backends are known before any reload, as always
        detail.why = 'static change (settling)';
        detail.applyMs = lap();
        // NGINX parses the configuration while it settles: the reload after the window
        // skips `nginx -t` when nothing changed meanwhile. One at a time and none while a
        // reload runs, so one extra parse per window at worst; that reload reports failures.
        if (!validatingAhead && !inFlight && dataplane.validateAhead) {
          const { conf, version } = render(model);
          detail.renderMs = lap();
          validatingAhead = dataplane.validateAhead(conf, version)
            .catch((err: unknown) => logger.debug({ err, version }, 'validation ahead failed; the reload reports it'))
            .finally(() => { validatingAhead = null; });
        }
        settleFor(waitMs);
        return 'reload-queued';
      }
    }
    if (decision.kind === 'dynamic') {
      detail.why = wasEmpty ? 'data plane empty' : dynamicReason(decision);
      await push(decision, model, detail);
      detail.applyMs = lap();
      current = model;
      return 'dynamic';
    }
    detail.why = 'static change';
    if (!dataplane.started()) {
      const { conf, version } = render(model);
      detail.renderMs = lap();
      await dataplane.start(conf, version);
      await push(decision, model, detail);
      current = confirmed = model;
      detail.applyMs = lap();
      hooks.onReloaded?.(model);
      return 'reload';
    }
    await push(decision, model, detail);
    detail.applyMs = lap();
    // Rendered only when a reload can start: a queued one renders again when its turn comes.
    if (inFlight || now() < retryAfter) return 'reload-queued';
    const { conf, version } = render(model);
    detail.renderMs = lap();
    if (badVersion && badVersion.version === version && now() < badVersion.until) return 'known-bad';
    staticSince = null;
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
    kick(): void {
      generation += 1;
      queue.kick();
    },
    dataplaneReset(): void {
      dataplaneEmpty = true;
      queue.kick();
    },
    async idle(): Promise<void> {
      do {
        await queue.idle();
        await settling?.done;
        await queue.idle();
        await inFlight;
        await validatingAhead;
      } while (inFlight || settling || validatingAhead);
      await queue.idle();
    },
    async stop(): Promise<void> {
      if (settling) {
        clearTimeout(settling.timer);
        settling.end();
        settling = null;
      }
      await queue.stop();
      await inFlight;
    },
    running: () => confirmed,
  };
}
