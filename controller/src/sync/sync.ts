// The one orchestrator: snapshot → build → decide → apply, run by a coalescing
// queue. It knows the model types and the decision; every other step is
// handed in by main as a function, so this file has no I/O of its own.
//
// Apply order matters: dynamic state is pushed BEFORE a reload, so the new
// workers never meet a backend they do not know (dynamic-push.ts). When a
// static change becomes a reload is reload-scheduler.ts's business: a settle
// window, validation ahead, one reload at a time in the background, so
// endpoint-only changes keep flowing while NGINX validates and reloads.

import { decideApply } from '../diff/decide.ts';
import type { BuildResult, Model, Snapshot } from '../model/types.ts';
import { createDynamicPusher, pushReason } from './dynamic-push.ts';
import { createIngressIsolation } from './ingress-isolation.ts';
import { nginxTestNeeded, nginxTestNeededAtStart } from './nginx-test-need.ts';
import { NO_PENDING, pendingHosts, type DynamicPending } from './pending-hosts.ts';
import { createPendingPush } from './pending-push.ts';
import { createPreviewPush } from './preview-push.ts';
import { createSyncQueue } from './queue.ts';
import { createReloadScheduler, Superseded, type ReloadPlan } from './reload-scheduler.ts';
import type { Sync, SyncDetail, SyncOptions, SyncResult } from './sync-types.ts';

export type { DataplaneControl, Sync, SyncDetail, SyncHooks, SyncOptions, SyncResult, SyncSteps } from './sync-types.ts';
export { ConfigRefused } from './sync-types.ts';
export { RetryLater } from './reload-scheduler.ts';

const RESULT_OF_PLAN: Readonly<Record<ReloadPlan, SyncResult>> = {
  settling: 'reload-queued',
  queued: 'reload-queued',
  'known-bad': 'known-bad',
  started: 'reload',
};

/**
 * `build` over a snapshot, run again only after an outside change or an exclusion (invalidate()). Knows the last
 * build and its snapshot even once invalidated (the preview compares the next snapshot with them). A snapshot
 * taken before an invalidate() is built but not kept: the sync may await between taking and building it.
 */
function memoizedBuild(build: (snapshot: Snapshot) => BuildResult, take: () => Snapshot): {
  stale(): boolean; take(): Taken; build(taken?: Taken): BuildResult; invalidate(): void; last(): { snapshot: Snapshot; model: Model } | null;
} {
  let memo: BuildResult | null = null;
  let last: { snapshot: Snapshot; model: Model } | null = null;
  let generation = 0;
  return {
    stale: () => memo === null,
    take: () => ({ snapshot: take(), generation }),
    build: (taken) => {
      if (memo !== null) return memo;
      const { snapshot, generation: takenIn } = taken ?? { snapshot: take(), generation };
      const result = build(snapshot);
      last = { snapshot, model: result.model };
      if (takenIn === generation) memo = result;
      return result;
    },
    invalidate: () => {
      memo = null;
      generation++;
    },
    last: () => last,
  };
}

/** A snapshot and the memo generation it was taken in. */
interface Taken {
  readonly snapshot: Snapshot;
  readonly generation: number;
}

/** Milliseconds since the previous lap (or since it was made). */
function stopwatch(now: () => number): () => number {
  let mark = now();
  return () => {
    const at = now();
    const ms = at - mark;
    mark = at;
    return ms;
  };
}

/** The sync over `options.steps` and `options.dataplane`; nothing runs until kick(). */
export function createSync(options: SyncOptions): Sync {
  const { steps, dataplane, logger, hooks = {} } = options;
  const now = options.now ?? Date.now;
  // Ingresses NGINX refused are left out of every build while they stay as they were.
  const isolation = createIngressIsolation({
    steps, validate: dataplane.validate?.bind(dataplane), running: () => scheduler.running(), onExcluded: () => builds.invalidate(), logger,
  });
  // An outside kick (an object changed) builds again; the sync's own kicks (a window closed,
  // a reload ended, a retry) reuse the last build.
  const builds = memoizedBuild((snapshot) => {
    const built = isolation.build(snapshot);
    hooks.onBuilt?.(built, snapshot);
    return built;
  }, () => steps.snapshot());
  const pusher = createDynamicPusher(dataplane);
  // New plain hosts served by the catch-all until the reload that renders them is confirmed (pending-hosts.ts).
  const pendingPush = createPendingPush(dataplane.pushPending?.bind(dataplane), logger);
  let pendingMemo: { running: Model | null; model: Model; pending: DynamicPending } | null = null;
  // A refused reload keeps the last good configuration whole: no new host goes live through Lua
  // either until a reload is confirmed again.
  let reloadRefused = false;
  const pendingOf = (model: Model): DynamicPending => {
    if (reloadRefused) return NO_PENDING;
    const running = scheduler.running();
    if (pendingMemo?.running !== running || pendingMemo.model !== model) {
      pendingMemo = { running, model, pending: pendingHosts(running, model) };
    }
    return pendingMemo.pending;
  };
  // New plain hosts of added Ingresses go to Lua before the build of the whole model (pending-preview.ts).
  const preview = createPreviewPush({
    build: steps.preview?.bind(steps), dataplane, pusher, pendingPush, logger, now,
    running: () => scheduler.running(), target: () => scheduler.target(), built: () => builds.last()?.model ?? null, refused: () => reloadRefused,
  });
  const testNeeded = (model: Model): boolean => options.skipNginxTestWhenTrusted !== true || nginxTestNeeded(scheduler.running(), model);
  const scheduler = createReloadScheduler({
    settleMs: options.reloadSettleMs ?? 0,
    holdMs: options.badConfigHoldMs ?? 30_000,
    render: (model) => steps.render(model),
    // `nginx -t` only where the change brings text NGINX reads unchecked; else the master's parse checks it.
    reload: (conf, version, model) => {
      const validate = testNeeded(model);
      return isolation.guard(model, conf, () => dataplane.reload(conf, version, { validate }));
    },
    validateAhead: dataplane.validateAhead === undefined ? undefined
      : async (conf, version, model) => {
        if (testNeeded(model)) await dataplane.validateAhead?.(conf, version);
      },
    kick: () => queue.kick(),
    onReloaded: (model) => {
      reloadRefused = false;
      hooks.onReloaded?.(model);
    },
    onReloadFailed: (err, model) => {
      reloadRefused = true;
      hooks.onReloadFailed?.(err, model);
    },
    logger,
    now,
  });

  /** The first configuration: NGINX starts on it, then gets its dynamic state. */
  const start = async (model: Model, detail: SyncDetail, lap: () => number, push: () => Promise<void>): Promise<SyncResult> => {
    const { conf, version } = steps.render(model);
    detail.renderMs = lap();
    try {
      // One parse instead of two where nothing in it is text NGINX reads unchecked (nginx-test-need.ts).
      const validate = options.skipNginxTestWhenTrusted !== true || nginxTestNeededAtStart(model);
      await isolation.guard(model, conf, () => dataplane.start(conf, version, { validate }));
    } catch (err) {
      if (!(err instanceof Superseded)) throw err;
      queue.kick(); // NGINX starts on the configuration without the Ingresses it refused
      return 'reload-queued';
    }
    // NGINX runs this configuration now, whatever the push does: a push that fails (250,000
    // endpoints at 50,000 Ingresses can outlast the workers' wait) is retried as a push of
    // everything, never as a reload to the version NGINX runs (which the manager refuses).
    scheduler.started(model);
    try {
      await push();
    } finally {
      // After the push, as after a reload: its Events and metrics do not compete with it.
      hooks.onReloaded?.(model);
    }
    detail.applyMs = lap();
    return 'reload';
  };

  const syncOnce = async (detail: SyncDetail): Promise<SyncResult> => {
    const lap = stopwatch(now);
    // An outside change: its snapshot is previewed first, then built whole.
    const taken = builds.stale() ? builds.take() : undefined;
    if (taken !== undefined) {
      await preview(builds.last()?.snapshot ?? null, taken.snapshot, detail);
      lap(); // the preview's time is its own field (previewMs)
    }
    const { model, failures } = builds.build(taken);
    detail.buildMs = lap();
    hooks.onFailures?.(failures);
    const lost = pusher.lost();
    const decision = decideApply({ model: scheduler.target(), dataplaneEmpty: lost, pushed: pusher.held() }, model);
    if (decision.kind !== 'reload') scheduler.unchanged(model);
    // Only when NGINX runs: its first configuration has every host.
    const pending = dataplane.started() ? pendingOf(model) : null;
    if (decision.kind === 'skip') {
      // The reload that rendered pending hosts was confirmed: they leave the set.
      if (pending === null || !pendingPush.changed(pending)) return 'skip';
      detail.why = 'pending hosts';
      await pendingPush.push(pending);
      detail.applyMs = lap();
      return 'dynamic';
    }
    detail.changed = decision.changed;
    const push = (): Promise<void> => pusher.push(decision, model, detail);
    if (decision.kind === 'dynamic') {
      detail.why = lost ? 'data plane empty' : pushReason(decision);
      await push();
      if (pending !== null) await pendingPush.push(pending);
      detail.applyMs = lap();
      return 'dynamic';
    }
    detail.why = 'static change';
    if (!dataplane.started()) return start(model, detail, lap, push);
    await push(); // new backends are known before any reload, as always
    // New plain hosts are served now, through the catch-all, while the reload settles and runs.
    const timing = pending === null ? null : await pendingPush.push(pending);
    if (pending !== null && timing !== null) {
      detail.pending = pending.hosts.length;
      detail.pendingPostMs = timing.postMs;
      detail.pendingWorkersMs = timing.workersMs;
    }
    detail.applyMs = lap();
    const plan = scheduler.plan(model);
    detail.renderMs = lap();
    if (plan === 'settling') detail.why = 'static change (settling)';
    return RESULT_OF_PLAN[plan];
  };

  // The object changes (outside kicks) the next sync carries: when the first was seen, how many.
  let kicked: { at: number; count: number } | null = null;
  const queue = createSyncQueue(async () => {
    const started = now();
    const detail: SyncDetail = { why: 'no change', changed: [], buildMs: 0, renderMs: 0, applyMs: 0 };
    if (kicked !== null) {
      detail.kickedAt = kicked.at;
      detail.kicks = kicked.count;
      kicked = null;
    }
    const result = await syncOnce(detail);
    const ms = now() - started;
    hooks.onSynced?.(result, ms, detail);
    // At most 20 names: one rolling deploy must not make a megabyte log line.
    const line = { result, why: detail.why, changed: detail.changed.slice(0, 20), changedCount: detail.changed.length,
      ms, buildMs: detail.buildMs, renderMs: detail.renderMs, applyMs: detail.applyMs, push: detail.push, pending: detail.pending,
      preview: detail.preview, previewMs: detail.previewMs, previewBuildMs: detail.previewBuildMs, previewBackendsMs: detail.previewBackendsMs,
      pendingPostMs: detail.pendingPostMs, pendingWorkersMs: detail.pendingWorkersMs,
      waitedMs: detail.kickedAt === undefined ? undefined : started - detail.kickedAt, kickedAt: detail.kickedAt, kicks: detail.kicks, startedAt: started };
    if (result !== 'skip') logger.info(line, 'sync');
    else logger.debug(line, 'sync');
    pusher.throwDeferred(); // certificates refused: the rest is applied; retried with backoff
  }, { minIntervalMs: options.minIntervalMs }, (err) => {
    hooks.onSyncFailed?.(err);
    logger.error({ err }, 'sync failed; retrying');
  });

  return {
    kick(): void {
      kicked = kicked === null ? { at: now(), count: 1 } : { at: kicked.at, count: kicked.count + 1 };
      builds.invalidate();
      queue.kick();
    },
    dataplaneReset(): void {
      pusher.reset();
      pendingPush.reset();
      queue.kick();
    },
    async idle(): Promise<void> {
      // A closing window or an ending reload kicks a sync, which may open or start the next.
      for (;;) {
        await queue.idle();
        if (!scheduler.busy()) return;
        await scheduler.settled();
      }
    },
    async stop(): Promise<void> {
      const reloadEnded = scheduler.stop(); // the window closes now; nothing new starts
      await queue.stop();
      await reloadEnded;
    },
    running: () => scheduler.running(),
  };
}
