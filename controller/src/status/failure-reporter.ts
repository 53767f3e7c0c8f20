// Reports the model builder's failures without flooding: every sync hands in
// the full current set, and only failures that are new since the previous
// sync are logged and handed to `onNew` (a Warning Event on the Ingress), so
// a broken Ingress is reported once, not on every event.

import type { Logger } from 'pino';
import type { Failure } from '../model/types.ts';

export interface FailureReporter {
  /** The complete set of failures of the latest build. */
  report(failures: readonly Failure[]): void;
  /** Failures currently standing, for health and tests. */
  current(): readonly Failure[];
}

function keyOf(f: Failure): string {
  return [f.ingress?.namespace ?? '', f.ingress?.name ?? '', f.reason, f.field, f.message].join('\u0000');
}

/** `onNew` is called once per failure that appears (e.g. to write a Warning Event); it must not throw. */
export function createFailureReporter(logger: Logger, onNew?: (failure: Failure) => void): FailureReporter {
  let standing = new Map<string, Failure>();
  return {
    report(failures: readonly Failure[]): void {
      const next = new Map(failures.map((f) => [keyOf(f), f]));
      for (const [key, f] of next) {
        if (standing.has(key)) continue;
        const ingress = f.ingress ? `${f.ingress.namespace}/${f.ingress.name}` : null;
        logger.warn({ ingress, reason: f.reason, field: f.field }, f.message);
        onNew?.(f);
      }
      for (const [key, f] of standing) {
        if (!next.has(key) && f.ingress) {
          logger.info({ ingress: `${f.ingress.namespace}/${f.ingress.name}`, reason: f.reason }, 'resolved');
        }
      }
      standing = next;
    },
    current: () => [...standing.values()],
  };
}
