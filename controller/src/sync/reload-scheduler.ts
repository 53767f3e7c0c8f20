// When a static change (nginx.conf differs) becomes a reload. The sync asks
// plan(model) after it pushed the model's dynamic part; the answer is one of:
//   settling   the change waits out its settle window (counted from when a
//              static change was first seen, so the objects of one `kubectl
//              apply` share one reload); NGINX validates it meanwhile
//              (`nginx -t` ahead, one at a time, none while a reload runs),
//              and a sync is kicked when the window closes. A newer change
//              inside the window takes the older one's place: the reload
//              after it runs whatever the sync then builds.
//   queued     a reload runs, or NGINX asked to wait (RetryLater); a sync is
//              kicked when one may start.
//   known-bad  this very configuration failed to reload lately; not tried
//              again until it changes or its hold ends (then a sync is kicked).
//              The hold doubles with each failure in a row of the same
//              configuration, from firstHoldMs up to holdMs: a cause that is
//              gone soon (a runtime file being replaced) costs seconds, one
//              that stays costs one `nginx -t` per holdMs.
//   started    its reload runs now, in the background; the sync goes on
//              pushing endpoints meanwhile.
// It also knows which configuration NGINX runs (confirmed by a reload) and
// which one it is moving to (what the differ compares the next model with).

import type { Logger } from 'pino';
import { sameStaticPart } from '../diff/decide.ts';
import type { Model } from '../model/types.ts';

/** A data-plane failure that says nothing about the configuration (e.g. NGINX is restarting): retry soon, do not hold the config as bad. */
export class RetryLater extends Error {}

/**
 * The configuration will not be applied as it is: a sync builds another one
 * now (NGINX refused some Ingresses, which are left out). Not a failure:
 * nothing is held as bad or reported, and a sync is kicked at once.
 */
export class Superseded extends Error {}

export type ReloadPlan = 'settling' | 'queued' | 'known-bad' | 'started';

export interface ReloadSchedulerOptions {
  /** A static change waits this long from when it was first seen (0: reload at once). */
  readonly settleMs: number;
  /** The longest a configuration that failed to reload is not tried again unless it changes. */
  readonly holdMs: number;
  /** Its first hold (default 1 s), doubled for each further failure in a row. */
  readonly firstHoldMs?: number;
  /** After RetryLater: no reload attempt for this long. */
  readonly retryLaterMs?: number;
  render(model: Model): { conf: string; version: string };
  /** Validate, reload and confirm `model`'s configuration; throws (RetryLater, Superseded or a real failure) and NGINX keeps the old one. */
  reload(conf: string, version: string, model: Model): Promise<void>;
  /** `nginx -t` ahead of the reload of `model` (absent: the reload validates). */
  validateAhead?(conf: string, version: string, model: Model): Promise<void>;
  /** Asks for a sync: a window closed, a reload ended, a hold or a wait is over. */
  kick(): void;
  onReloaded?(model: Model): void;
  onReloadFailed?(err: unknown, model: Model): void;
  readonly logger: Logger;
  readonly now?: () => number;
}

export interface ReloadScheduler {
  /** The sync found nginx.conf must change to `model` (NGINX runs; the dynamic part is pushed). */
  plan(model: Model): ReloadPlan;
  /** NGINX started on `model`'s configuration (the first sync). */
  started(model: Model): void;
  /** The latest model needs no reload: a pending window is forgotten; later models are compared with this one. */
  unchanged(model: Model): void;
  /** The model NGINX runs or reloads to, with its dynamic part pushed; null before NGINX started. */
  target(): Model | null;
  /** The model whose configuration NGINX confirmed running, or null. */
  running(): Model | null;
  /** True while a window is open, a reload runs or a validation ahead runs. */
  busy(): boolean;
  /** Resolves once what is pending now (window, reload, validation ahead) is over; each may kick a sync. */
  settled(): Promise<void>;
  /** Closes the window at once and starts nothing more; resolves when the reload in flight ended. */
  stop(): Promise<void>;
}

/** The static change waiting for its reload: when it was first seen, and whether its window has passed. */
interface Pending {
  readonly since: number;
  over: boolean;
}

interface Window {
  readonly timer: NodeJS.Timeout;
  readonly done: Promise<void>;
  readonly close: () => void;
}

export function createReloadScheduler(options: ReloadSchedulerOptions): ReloadScheduler {
  const { logger } = options;
  const now = options.now ?? Date.now;
  const retryLaterMs = options.retryLaterMs ?? 1000;
  const firstHoldMs = options.firstHoldMs ?? 1000;
  let target: Model | null = null;
  let running: Model | null = null;
  let pending: Pending | null = null;
  let window: Window | null = null;
  let reloading: Promise<void> | null = null;
  let validating: Promise<void> | null = null;
  let bad: { version: string; until: number; failures: number } | null = null;
  let waitUntil = 0;
  let lastRender: { model: Model; conf: string; version: string } | null = null;
  let stopped = false;

  /** Rendered once per static part: the reload after a window reuses the text validated ahead. */
  const render = (model: Model): { conf: string; version: string } => {
    if (lastRender === null || !sameStaticPart(lastRender.model, model)) lastRender = { model, ...options.render(model) };
    return lastRender;
  };

  const openWindow = (change: Pending, ms: number): void => {
    if (window) return;
    let close = (): void => undefined;
    const done = new Promise<void>((resolve) => { close = resolve; });
    // `over` rather than the clock: a timer may fire a millisecond before Date.now() says it is due.
    const timer = setTimeout(() => { change.over = true; window = null; close(); options.kick(); }, ms);
    window = { timer, done, close };
  };

  const validateAhead = (model: Model): void => {
    if (validating || reloading || !options.validateAhead) return;
    const { conf, version } = render(model);
    validating = options.validateAhead(conf, version, model)
      .catch((err: unknown) => logger.debug({ err, version }, 'validation ahead failed; the reload reports it'))
      .finally(() => { validating = null; });
  };

  const startReload = (model: Model, conf: string, version: string): void => {
    target = model;
    reloading = options.reload(conf, version, model).then(
      () => {
        running = model;
        bad = null;
        options.onReloaded?.(model);
      },
      (err: unknown) => {
        target = running;
        if (err instanceof Superseded) return; // the kick below builds its successor
        if (err instanceof RetryLater) {
          logger.warn({ err: err.message, version }, 'reload postponed');
          waitUntil = now() + retryLaterMs;
          setTimeout(options.kick, retryLaterMs).unref();
          return;
        }
        const failures = bad?.version === version ? bad.failures + 1 : 1;
        const holdMs = Math.min(options.holdMs, firstHoldMs * 2 ** (failures - 1));
        bad = { version, until: now() + holdMs, failures };
        logger.error({ err, version, retryInMs: holdMs }, 'reload failed; NGINX keeps the last good configuration');
        options.onReloadFailed?.(err, model);
        setTimeout(options.kick, holdMs).unref(); // try the same configuration again later
      },
    ).finally(() => {
      reloading = null;
      options.kick();
    });
  };

  return {
    plan(model): ReloadPlan {
      if (stopped) return 'queued';
      pending ??= { since: now(), over: false };
      const waitMs = pending.over ? 0 : pending.since + options.settleMs - now();
      if (waitMs > 0) {
        validateAhead(model);
        openWindow(pending, waitMs);
        return 'settling';
      }
      if (reloading || now() < waitUntil) return 'queued';
      const { conf, version } = render(model);
      if (bad && bad.version === version && now() < bad.until) return 'known-bad';
      pending = null;
      startReload(model, conf, version);
      return 'started';
    },
    started(model): void {
      target = running = model;
    },
    unchanged(model): void {
      pending = null;
      target = model;
    },
    target: () => target,
    running: () => running,
    busy: () => window !== null || reloading !== null || validating !== null,
    async settled(): Promise<void> {
      await window?.done;
      await reloading;
      await validating;
    },
    async stop(): Promise<void> {
      stopped = true;
      if (window) {
        clearTimeout(window.timer);
        window.close();
        window = null;
      }
      await reloading;
    },
  };
}
