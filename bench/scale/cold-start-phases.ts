// Where a cold start's time went, from the controller's own log lines (pino
// objects with epoch-ms `time`): spawn → "watching" (imports, set-up),
// "watching" → the first sync (the initial lists), and the first sync line's
// build, render and apply (NGINX start + dynamic push), the apply split at
// the "NGINX started" line into the master's start (its parse of the whole
// file) and the first push to Lua. The first sync is the one that starts
// NGINX, whatever its result (a superseded start is "reload-queued").

export interface ColdStartPhases {
  readonly startupMs: number;
  readonly listMs: number;
  readonly buildMs: number;
  readonly renderMs: number;
  readonly applyMs: number;
  /** Of applyMs: the render's end → "NGINX started" (the master serves the first version). */
  readonly nginxStartMs: number;
  /** Of applyMs: "NGINX started" → the first sync's end (the first push: endpoints, certificates, routes). */
  readonly pushMs: number;
}

type LogLine = Readonly<Record<string, unknown>>;

const num = (value: unknown): number => (typeof value === 'number' ? value : Number.NaN);

/** Log lines worth keeping with a cold start's figures: warnings and errors (a list retried, a sync failed), at most `max`. */
export function troubleLines(lines: readonly LogLine[], max = 20): LogLine[] {
  return lines.filter((l) => num(l.level) >= 40).slice(0, max);
}

/** The phases of a cold start that was ready `readyMs` after spawn; NaN for a phase whose line is missing. */
export function coldStartPhases(lines: readonly LogLine[], readyMs: number): ColdStartPhases {
  const live = lines.find((l) => l.msg === 'first configuration is live');
  const watching = lines.find((l) => l.msg === 'watching');
  const sync = lines.find((l) => l.msg === 'sync');
  const nginxStarted = lines.find((l) => l.msg === 'NGINX started');
  const spawnedAt = num(live?.time) - readyMs;
  const syncStartedAt = num(sync?.time) - num(sync?.ms);
  const renderedAt = syncStartedAt + num(sync?.buildMs) + num(sync?.renderMs);
  return {
    startupMs: num(watching?.time) - spawnedAt,
    listMs: syncStartedAt - num(watching?.time),
    buildMs: num(sync?.buildMs),
    renderMs: num(sync?.renderMs),
    applyMs: num(sync?.applyMs),
    nginxStartMs: num(nginxStarted?.time) - renderedAt,
    pushMs: num(sync?.time) - num(nginxStarted?.time),
  };
}
