// The next nginx.conf on its way in: written beside the live file, checked
// with `nginx -t`, then renamed over the live file. It remembers the text it
// last checked, so that a configuration validated ahead of its reload (while
// its change settles) is not parsed a second time.
import { rename, rm } from 'node:fs/promises';
import type { Dataplane } from './dataplane.ts';
import { testNginxConf, writeFileAtomic } from './nginx-conf-files.ts';
import { NginxConfigError } from './nginx-errors.ts';

export interface CandidateOptions {
  readonly dataplane: Dataplane;
  readonly prefix: string;
  /** The live file the master reads. */
  readonly confPath: string;
  readonly testMs: number;
  /** Aborts any `nginx -t` (the manager is stopping). */
  readonly lifetime: AbortSignal;
  /** Counted per `nginx -t` run, and per refusal. */
  readonly counters: { validations: number; invalidConfigs: number };
}

/** How a candidate came to be valid: the parse's duration, and whether it ran ahead (an earlier call). */
export interface Validation {
  readonly ms: number;
  readonly ahead: boolean;
}

export interface CandidateConf {
  /**
   * `nginx -t` of `conf` as the candidate, unless that text was the last one
   * checked: then its result again (a refusal only once, so a later retry
   * parses anew). Throws NginxConfigError when refused; `cancel` stops the
   * parse (a cancelled one is neither counted as refused nor remembered).
   */
  validate(conf: string, cancel?: AbortSignal): Promise<Validation>;
  /**
   * Writes `conf` as the candidate without `nginx -t` (a reload that lets the
   * master's own parse be the check: nginx-manager.ts); promote() then renames it.
   */
  stage(conf: string): Promise<void>;
  /** Renames the validated (or staged) candidate over the live file. */
  promote(): Promise<void>;
}

export function createCandidateConf(options: CandidateOptions): CandidateConf {
  const { dataplane, prefix, confPath, testMs, lifetime, counters } = options;
  // No `.conf` suffix, so an `include *.conf` beside the live file never picks it up.
  const candidatePath = `${confPath}.candidate`;
  let checked: { conf: string; error: NginxConfigError | null; ms: number } | null = null;

  return {
    async validate(conf, cancel) {
      if (checked?.conf === conf) {
        const { error, ms } = checked;
        if (error === null) return { ms, ahead: true };
        checked = null;
        throw error;
      }
      checked = null;
      await writeFileAtomic(candidatePath, conf);
      const began = Date.now();
      try {
        counters.validations += 1;
        const signal = cancel ? AbortSignal.any([lifetime, cancel]) : lifetime;
        await testNginxConf({ dataplane, prefix, confPath: candidatePath, timeoutMs: testMs, signal });
        checked = { conf, error: null, ms: Date.now() - began };
        return { ms: checked.ms, ahead: false };
      } catch (err) {
        await rm(candidatePath, { force: true });
        if (err instanceof NginxConfigError && !cancel?.aborted) {
          counters.invalidConfigs += 1;
          checked = { conf, error: err, ms: Date.now() - began };
        }
        throw err;
      }
    },
    async stage(conf) {
      checked = null;
      await writeFileAtomic(candidatePath, conf);
    },
    async promote() {
      checked = null;
      await rename(candidatePath, confPath);
    },
  };
}
