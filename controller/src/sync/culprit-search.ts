// Which Ingresses make NGINX refuse a configuration. Each question is one
// `nginx -t` of the configuration built without some Ingresses (a trial), so
// the search is bounded by a number of trials:
// 1. NGINX names a line; when that line belongs to an Ingress (the renderer
//    knows which location it printed there) that Ingress is a culprit;
// 2. else the Ingresses that changed since the last configuration NGINX
//    accepted are bisected: without all of them NGINX must accept (else the
//    fault lies elsewhere: the ConfigMap, the runtime), then the shortest
//    prefix of them (oldest first) that NGINX refuses ends with a culprit:
//    1 + ceil(log2 n) trials. A culprit must be shown by a refusal of this
//    search: when no trial refused (e.g. a single suspect), the whole
//    configuration is tried again first, so a fault that passed meanwhile (a
//    runtime file being replaced, or a refusal remembered from a validation
//    ahead) blames nobody: the search ends accepted with no culprit;
// 3. one trial without the culprits found so far: accepted ends the search,
//    refused starts again at 1 with the new refusal.
// The culprits are to be left out only when the search ended accepted, or ran
// out of trials: a search that ends on a refusal no changed Ingress explains
// (the runtime broke meanwhile) may have blamed innocents.
// Generic in what an Ingress is, so the table tests read as plain names.

/** NGINX's refusal of one trial: its words, and the Ingresses the line it named belongs to (empty: none). */
export interface Refused<T> {
  readonly detail: string;
  readonly owners: readonly T[];
}

export interface CulpritSearch<T> {
  /** The refusal that started the search: the configuration with every Ingress not left out before. */
  readonly refused: Refused<T>;
  /** Ingresses that changed since the last configuration NGINX accepted, oldest first: the suspects of step 2. */
  readonly changed: readonly T[];
  /** `nginx -t` of the configuration without `exclude` (and without those left out before): null when NGINX accepts it. */
  trial(exclude: ReadonlySet<T>): Promise<Refused<T> | null>;
  /** Most trials; a search that runs out returns the culprits found so far. */
  readonly maxTrials: number;
}

export interface Culprit<T> {
  readonly ingress: T;
  /** NGINX's words about the configuration that first showed it at fault. */
  readonly detail: string;
  /** How it was found: NGINX named its line, or bisecting the changed Ingresses. */
  readonly found: 'line' | 'bisect';
}

export interface SearchResult<T> {
  /** In the order found. */
  readonly culprits: readonly Culprit<T>[];
  readonly trials: number;
  /**
   * How it ended: NGINX accepted the configuration without the culprits (the
   * last trial; with none, the refusal has passed); the trials ran out; or
   * NGINX refused for a reason no changed Ingress explains.
   */
  readonly end: 'accepted' | 'out-of-trials' | 'unexplained';
}

export async function findCulprits<T>(search: CulpritSearch<T>): Promise<SearchResult<T>> {
  const culprits = new Map<T, Culprit<T>>();
  let trials = 0;
  const budgetLeft = (): boolean => trials < search.maxTrials;
  const trialWithout = (more: readonly T[]): Promise<Refused<T> | null> => {
    trials += 1;
    return search.trial(new Set([...culprits.keys(), ...more]));
  };
  const result = (end: SearchResult<T>['end']): SearchResult<T> => ({ culprits: [...culprits.values()], trials, end });

  /** Step 2: a culprit among the changed Ingresses, given that NGINX refused them all (with `detail`). */
  /** A culprit; or how the search ends: `accepted` (without the culprits so far: a refusal that passed), `unexplained`, null = out of trials. */
  const bisect = async (detail: string): Promise<Culprit<T> | 'accepted' | 'unexplained' | null> => {
    const suspects = search.changed.filter((ingress) => !culprits.has(ingress));
    if (suspects.length === 0) return 'unexplained';
    if (!budgetLeft()) return null;
    if ((await trialWithout(suspects)) !== null) return 'unexplained';
    // Invariant: with the first `lo` suspects NGINX accepts, with the first `hi` it refuses (saying `detail`).
    let lo = 0;
    let hi = suspects.length;
    while (hi - lo > 1) {
      if (!budgetLeft()) return null;
      const mid = (lo + hi) >>> 1;
      const refused = await trialWithout(suspects.slice(mid));
      if (refused === null) lo = mid;
      else [hi, detail] = [mid, refused.detail];
    }
    if (hi === suspects.length) {
      // No trial refused: is the configuration with every suspect still refused?
      if (!budgetLeft()) return null;
      const again = await trialWithout([]);
      if (again === null) return 'accepted';
      detail = again.detail;
    }
    return { ingress: suspects[hi - 1], detail, found: 'bisect' };
  };

  let refused = search.refused;
  for (;;) {
    const owners = refused.owners.filter((ingress) => !culprits.has(ingress));
    if (owners.length > 0) {
      for (const ingress of owners) culprits.set(ingress, { ingress, detail: refused.detail, found: 'line' });
    } else {
      const found = await bisect(refused.detail);
      if (found === null) return result('out-of-trials');
      if (found === 'accepted') return result('accepted');
      if (found === 'unexplained') return result('unexplained');
      culprits.set(found.ingress, found);
    }
    if (!budgetLeft()) return result('out-of-trials');
    const next = await trialWithout([]);
    if (next === null) return result('accepted');
    refused = next;
  }
}
