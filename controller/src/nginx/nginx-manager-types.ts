// The NGINX manager's public shape: what main and tests hand in, and what
// they get back. The implementation is nginx-manager.ts.
import type { Logger } from 'pino';
import type { Dataplane } from './dataplane.ts';
import type { RestartBackoff } from './restart-policy.ts';

/** Bounds of each step, in ms. */
export interface NginxTimeouts {
  /** `nginx -t` (large configurations take seconds). */
  readonly testMs: number;
  /** A new master serving its version. */
  readonly startMs: number;
  /** New workers serving the new version after SIGHUP. */
  readonly reloadMs: number;
  /** SIGQUIT until the master exited, before SIGTERM. */
  readonly stopMs: number;
}

export const DEFAULT_TIMEOUTS: NginxTimeouts = { testMs: 120_000, startMs: 30_000, reloadMs: 10_000, stopMs: 10_000 };

export interface NginxManagerOptions {
  readonly dataplane: Dataplane;
  /** NGINX's prefix (-p): pid file, temp paths and relative includes live here. Created if missing. */
  readonly prefix: string;
  /** The live configuration file; default <prefix>/nginx.conf. */
  readonly confPath?: string;
  /** The `error_log` file of the configuration (the rendered one's: <prefix>/error.log, the default), read during reloads. */
  readonly errorLogPath?: string;
  readonly logger: Logger;
  /** The status server's config-version URL, e.g. http://127.0.0.1:<statusPort>/config-version. */
  readonly versionUrl: () => string;
  /** Called after NGINX was restarted following a crash: its shared dicts are empty, push the dynamic state again. */
  readonly onRestart?: () => Promise<void>;
  readonly timeouts?: Partial<NginxTimeouts>;
  readonly restartBackoff?: Partial<RestartBackoff>;
}

/** Counters for tests and metrics. */
export interface NginxStats {
  /** Reloads confirmed by config version. */
  readonly reloads: number;
  /** Reloads signalled but not confirmed (the old configuration kept serving). */
  readonly reloadFailures: number;
  /** Configurations `nginx -t` rejected (never signalled). */
  readonly invalidConfigs: number;
  /** `nginx -t` runs (a configuration validated ahead is not validated again by apply()). */
  readonly validations: number;
  /** Restarts after the master exited unexpectedly. */
  readonly restarts: number;
  readonly lastReload: { readonly at: Date; readonly ok: boolean; readonly durationMs: number } | null;
  /** Reloads signalled without `nginx -t` before them (apply() with validate: false). */
  readonly unvalidatedReloads: number;
}

/** How apply() checks a configuration before the SIGHUP. */
export interface ApplyOptions {
  /**
   * false: no `nginx -t` before the HUP; the master's own parse is the check
   * (it refuses a bad file and keeps the old workers; the config version is
   * not confirmed). For configurations built only from validated values.
   * When such a reload fails, `nginx -t` runs on the same text, so a refusal
   * is the NginxConfigError a validated reload throws, and every apply()
   * validates again until a reload is confirmed. Default true.
   */
  readonly validate?: boolean;
}

export interface NginxManager {
  /**
   * Validates `conf`, starts the master on it and waits until it serves `version`. With
   * validate: false no `nginx -t` first: the master's own parse is the check (a bad file
   * stops it), and only a start that failed runs `nginx -t`, so a refusal is the same
   * NginxConfigError as a validated start's.
   */
  start(conf: string, version: string, options?: ApplyOptions): Promise<void>;
  /** Validates `conf` (NginxConfigError), reloads and confirms `version` (NginxReloadError); on failure the old configuration keeps serving. */
  apply(conf: string, version: string, options?: ApplyOptions): Promise<void>;
  /**
   * Runs `nginx -t` on a configuration that is about to be applied, so that
   * apply() of the same text reloads without parsing it again (or throws the
   * same NginxConfigError). Nothing is signalled. A later validateAhead() or an
   * apply() of another text cancels it (it then resolves) instead of waiting
   * behind a parse that no longer matters.
   */
  validateAhead(conf: string, version: string): Promise<void>;
  /**
   * `nginx -t` of a candidate, to learn whether NGINX accepts it (the sync
   * tries configurations without an Ingress NGINX refused): resolves when it
   * does, throws NginxConfigError when it does not. Never cancelled by
   * another call; apply() of the same text then reloads without parsing it again.
   */
  validate(conf: string): Promise<void>;
  /** Graceful stop; no restart afterwards. */
  stop(): Promise<void>;
  /** True once a configuration was confirmed, until stop(). */
  started(): boolean;
  /** The confirmed configuration's version, or null. */
  liveVersion(): string | null;
  pid(): number | null;
  workerPids(): number[];
  stats(): NginxStats;
}
