// What every benchmark receives, and the shape of a benchmark. The profile
// sets the sizes and durations: `full` (~10 min on 2 cores), `quick`
// (~2 min), `smoke` (seconds: the test that keeps the benchmarks from rotting).
import type { Dataplane } from '../../controller/src/nginx/dataplane.ts';
import type { BenchResult } from './report.ts';

export type Profile = 'full' | 'quick' | 'smoke';
export const PROFILES: readonly Profile[] = ['full', 'quick', 'smoke'];

export interface BenchContext {
  readonly profile: Profile;
  /** `--scale full`: also the 50,000-Ingress rows (minutes and ~1 GB each); default: without them. */
  readonly scale?: 'default' | 'full';
  /** A fresh temp folder for this benchmark's prefixes and files; removed afterwards. */
  readonly workDir: string;
  readonly dataplane: Dataplane;
  /** CPU for the system under test (the proxy worker), or null when not pinning. */
  readonly serverCpu: number | null;
  /** CPU for the load generator and the backends, or null. */
  readonly loadCpu: number | null;
  /** Progress lines (stderr), so a long run shows it is alive. */
  log(message: string): void;
}

export interface Benchmark {
  readonly id: string;
  readonly title: string;
  run(ctx: BenchContext): Promise<BenchResult>;
}

/** Picks the profile's value from a table with one entry per profile. */
export function byProfile<T>(ctx: Pick<BenchContext, 'profile'>, table: Readonly<Record<Profile, T>>): T {
  return table[ctx.profile];
}
