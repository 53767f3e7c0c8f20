// List filtering and paging shared by list and watch: which objects a
// namespace + label + field selector picks, and the opaque continue token
// (last key + the list's resourceVersion) that `limit` pages hand out.
import { badRequest, gone } from './errors.ts';
import type { JsonObject } from './patch.ts';
import { fieldValue, matchesSelector, parseFieldSelector, parseLabelSelector } from './selectors.ts';

export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
}

export interface ListResult {
  readonly items: JsonObject[];
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

export interface WatchOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** absent or "0": synthetic ADDED for the current state first */
  readonly resourceVersion?: string;
}

export interface FilterOptions {
  /** namespace to keep, or undefined for all (and for cluster-scoped kinds) */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

/** Parse the selectors once (400 on bad syntax) and return the predicate. */
export function objectFilter(opts: FilterOptions): (obj: JsonObject) => boolean {
  const labels = parseLabelSelector(opts.labelSelector);
  const fields = parseFieldSelector(opts.fieldSelector);
  return (obj) => {
    const meta = obj.metadata as JsonObject;
    return (opts.namespace === undefined || meta.namespace === opts.namespace)
      && matchesSelector(labels, (k) => (meta.labels as Record<string, string> | undefined)?.[k])
      && matchesSelector(fields, (k) => fieldValue(obj, k));
  };
}

export interface ContinueToken {
  /** the last object key returned */
  readonly key: string;
  /** the resourceVersion of the first page */
  readonly rv: number;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ k: token.key, rv: token.rv })).toString('base64url');
}

/** Decode a continue token; 400 when malformed, 410 when its resourceVersion is no longer served. */
export function decodeContinue(text: string, isResumable: (rv: number) => boolean): ContinueToken {
  let raw: { k?: unknown; rv?: unknown };
  try {
    raw = JSON.parse(Buffer.from(text, 'base64url').toString()) as typeof raw;
  } catch {
    throw badRequest('invalid continue token');
  }
  if (raw === null || typeof raw.k !== 'string' || typeof raw.rv !== 'number') throw badRequest('invalid continue token');
  if (!isResumable(raw.rv)) {
    throw gone('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
  }
  return { key: raw.k, rv: raw.rv };
}
