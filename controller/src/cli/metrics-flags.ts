// Parsers for ingress-nginx's per-request metrics flags: --time-buckets,
// --length-buckets, --size-buckets (pflag float slices) and
// --exclude-socket-metrics (a string slice). As in pflag, a repeated slice
// flag appends to the values given before it, and the first replaces the
// default. Stricter than pflag where ingress-nginx would crash or silently
// do nothing: bucket bounds must be increasing positive finite numbers
// (Prometheus panics on bounds out of order), metric names must be names.

import { InvalidArgumentError } from 'commander';

/** A decimal number as written in a bucket list (no hex, no Inf/NaN, no sign: bounds are positive). */
const DECIMAL = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/u;
/** A Prometheus metric name. */
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/u;

/** Comma-separated items, each trimmed of spaces. */
const items = (value: string): string[] => value.split(',').map((item) => item.trim());

/** Reads one bucket list; throws InvalidArgumentError saying what a list must be. */
export function parseBucketList(value: string): number[] {
  const bounds = items(value).map((item) => {
    const bound = DECIMAL.test(item) ? Number(item) : Number.NaN;
    if (!Number.isFinite(bound) || bound <= 0) {
      throw new InvalidArgumentError(`Expected comma-separated increasing numbers greater than 0 (e.g. 0.1,0.5,1); "${item}" is not one.`);
    }
    return bound;
  });
  checkIncreasing(bounds);
  return bounds;
}

function checkIncreasing(bounds: readonly number[]): void {
  for (let i = 1; i < bounds.length; i++) {
    if (bounds[i] <= bounds[i - 1]) {
      throw new InvalidArgumentError(`Expected comma-separated increasing numbers greater than 0 (e.g. 0.1,0.5,1); ${bounds[i]} does not exceed ${bounds[i - 1]} before it.`);
    }
  }
}

/**
 * A bucket flag for commander: `previous` is undefined until the flag is given
 * (the default, ingress-nginx's, is the metrics module's), then what it gave.
 */
export function parseBuckets(value: string, previous: readonly number[] | undefined): readonly number[] {
  const given = parseBucketList(value);
  if (previous === undefined) return Object.freeze(given);
  const joined = [...previous, ...given];
  checkIncreasing(joined);
  return Object.freeze(joined);
}

/** --exclude-socket-metrics: comma-separated metric names (empty items skipped, as pflag leaves them harmless). */
export function parseMetricNames(value: string, previous: readonly string[] | undefined): readonly string[] {
  const names = items(value).filter((item) => item !== '');
  const bad = names.find((name) => !METRIC_NAME.test(name));
  if (bad !== undefined) throw new InvalidArgumentError(`Expected comma-separated metric names (e.g. nginx_ingress_controller_header_duration_seconds); "${bad}" is not one.`);
  return Object.freeze([...(previous ?? []), ...names]);
}
