// The sync's contract with main: the data plane and pure steps it is handed,
// its options and hooks, and what it reports per sync. The implementation is
// sync.ts (which re-exports these).

import type { DynamicPending } from './pending-hosts.ts';
import type { V1Ingress } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { BackendPatch, BuildResult, DynamicBackend, DynamicCertificates, DynamicCredentials, DynamicRoutes, DynamicStream, Failure, IngressRef, Model, Snapshot } from '../model/types.ts';

/**
 * `nginx -t` refused a configuration (start, reload or validate throw it): NGINX's
 * own words, and the line of nginx.conf it named, by which the sync finds the
 * Ingress at fault (sync/ingress-isolation.ts).
 */
export class ConfigRefused extends Error {
  /** NGINX's problem lines without the controller's file paths, for Events. */
  readonly detail: string;
  /** The line of the rendered nginx.conf NGINX named, or null. */
  readonly line: number | null;

  constructor(detail: string, line: number | null, options?: ErrorOptions) {
    super(`NGINX refused the configuration: ${detail}`, options);
    this.name = 'ConfigRefused';
    this.detail = detail;
    this.line = line;
  }
}

/** What the sync needs from the data plane (implemented by main over nginx/). */
export interface DataplaneControl {
  /** True once NGINX runs some configuration. */
  started(): boolean;
  /**
   * Validate, start NGINX and confirm it serves `version`. validate false: no `nginx -t` first
   * (nothing in the configuration is text NGINX reads unchecked); a start that fails is then
   * validated, and its refusal thrown as ConfigRefused like any other.
   */
  start(conf: string, version: string, options?: { readonly validate?: boolean }): Promise<void>;
  /**
   * Validate, reload and confirm the new workers serve `version`; throws and keeps the old config on failure.
   * validate false: no `nginx -t` before the HUP (the sync found the change carries no text NGINX
   * reads unchecked: nginx-test-need.ts); a reload the master refuses is then validated, and its
   * refusal thrown as ConfigRefused like any other.
   */
  reload(conf: string, version: string, options?: { readonly validate: boolean }): Promise<void>;
  /**
   * `nginx -t` a configuration ahead of its reload (absent: reload validates).
   * reload() of the same text then skips the parse. Never signals NGINX.
   */
  validateAhead?(conf: string, version: string): Promise<void>;
  /**
   * `nginx -t` of a configuration the sync may apply next: resolves when NGINX
   * accepts it, throws ConfigRefused when it does not (absent: no Ingress NGINX
   * refuses is left out; the reload fails for all).
   */
  validate?(conf: string, version: string): Promise<void>;
  /** POST the full dynamic state to Lua. */
  pushBackends(backends: readonly DynamicBackend[]): Promise<void>;
  /**
   * PATCH only what changed since the state last pushed (absent: every push
   * is a full POST). Used only while that state is known to be in Lua.
   * Resolves once every worker holds it; `stored`: once Lua stored it (a push
   * right after it, whose own wait covers both, follows: pending hosts).
   */
  patchBackends?(patch: BackendPatch, options?: { readonly stored: boolean }): Promise<void>;
  /** POST every certificate and the host map to Lua (only when they changed or Lua lost them). */
  pushCertificates(certificates: DynamicCertificates): Promise<void>;
  /** POST every route policy (canary splits) to Lua (only when they changed or Lua lost them); after the backends they name. */
  pushRoutes(routes: DynamicRoutes): Promise<void>;
  /** POST every basic/digest user set to Lua (only when they changed or Lua lost them). Absent: none is pushed. */
  pushCredentials?(credentials: DynamicCredentials): Promise<void>;
  /**
   * Feed every TCP/UDP listener's endpoints to njs (only when they changed or NGINX lost them).
   * Resolves false when NGINX runs no stream {} yet (no feed socket): fed again after the reload.
   * Absent: never fed.
   */
  pushStreams?(streams: readonly DynamicStream[]): Promise<boolean>;
  /**
   * POST the new plain hosts the catch-all serves until their reload (sync/pending-hosts.ts), the full
   * set, and wait until every worker holds it; after the backends they name. Absent: none is pushed.
   */
  pushPending?(pending: DynamicPending): Promise<PendingPushTiming | void>;
}

/** Where a pending push's time went (for the sync log line): the POST, then until every worker held the set. */
export interface PendingPushTiming {
  readonly postMs: number;
  readonly workersMs: number;
}

/** The pure steps, handed in by main. */
export interface SyncSteps {
  snapshot(): Snapshot;
  /** Builds as if the `exclude` Ingress objects were absent (NGINX refused them). No side effects: see SyncHooks.onBuilt. */
  build(snapshot: Snapshot, exclude: ReadonlySet<V1Ingress>): BuildResult;
  render(model: Model): { conf: string; version: string };
  /**
   * Builds a snapshot's model with a builder of its own (never the one `build` uses): the sync previews the
   * hosts of added Ingresses with it before the full build (pending-preview.ts). Absent: no preview.
   */
  preview?(snapshot: Snapshot): BuildResult;
  /** The Ingresses that produced line `line` of `conf`, rendered from `model` (absent: none is known; the sync bisects). */
  owners?(model: Model, conf: string, line: number): readonly IngressRef[];
}

/** Outcome of one sync, for logs and metrics. */
export type SyncResult = 'skip' | 'dynamic' | 'reload' | 'reload-queued' | 'known-bad';

/** Why a sync did what it did, and where its time went: the sync log line and metrics. */
export interface SyncDetail {
  /**
   * `static change` (nginx.conf differs; `static change (settling)` while its reload waits), else what
   * was pushed without a reload: `endpoints`, `certificates` or `endpoints and certificates`;
   * `data plane empty` (NGINX lost its state: everything pushed again), `pending hosts` (their reload was
   * confirmed: the set Lua serves them by shrank), or `no change`.
   */
  why: string;
  /** Backends whose dynamic part changed, sorted (empty for skip). */
  changed: readonly string[];
  buildMs: number;
  renderMs: number;
  /** Pushing to Lua, plus starting NGINX on the first sync (a reload runs in the background after). */
  applyMs: number;
  /** How the backends went to Lua: the full set (POST) or only the changes (PATCH); absent when nothing was pushed. */
  push?: 'full' | 'patch';
  /** New hosts the catch-all serves until this reload (sync/pending-hosts.ts), when the set was pushed; absent otherwise. */
  pending?: number;
  /**
   * New hosts pushed ahead of the full build (preview-push.ts), and that preview's time: in all, the build of
   * the added Ingresses alone, their backends' push (the pending push's parts are pendingPostMs, pendingWorkersMs).
   */
  preview?: number;
  previewMs?: number;
  previewBuildMs?: number;
  previewBackendsMs?: number;
  /** That push (or the preview's): the POST, then until every worker held the set (ms; from the data plane, when it says). */
  pendingPostMs?: number;
  pendingWorkersMs?: number;
  /**
   * When the first object change this sync carries was seen (the informer's event: epoch ms of `now`), and how
   * many changes it coalesced; absent for the sync's own kicks (a window closed, a reload ended, a retry).
   */
  kickedAt?: number;
  kicks?: number;
}

export interface SyncHooks {
  /** A model was built for a sync (not the trials that look for an Ingress NGINX refuses), from `snapshot`. */
  onBuilt?(result: BuildResult, snapshot: Snapshot): void;
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
  readonly dataplane: DataplaneControl;
  readonly logger: Logger;
  readonly minIntervalMs: number;
  /** The longest a configuration that failed to reload is not retried unless it changes (ms; the first wait is 1 s, doubling). */
  readonly badConfigHoldMs?: number;
  /**
   * A static change waits this long from when it was first seen before its
   * reload starts (default 0), so that the objects of one `kubectl apply`
   * share one reload. Endpoint pushes never wait.
   */
  readonly reloadSettleMs?: number;
  /**
   * true: a reload whose change brings no snippet or PEM NGINX has not accepted
   * yet skips `nginx -t` (ahead and before the HUP): the master's parse checks it
   * (nginx-test-need.ts). Default false: `nginx -t` before every reload.
   */
  readonly skipNginxTestWhenTrusted?: boolean;
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
