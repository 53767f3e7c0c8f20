// The benchmarks `npm run bench` runs, in order. Each file owns one.
import { externalAuthBenchmark } from './external-auth/external-auth.ts';
import type { Benchmark } from './lib/context.ts';
import { controllerScaleBenchmark } from './scale/controller-scale.ts';
import { propagationBenchmark } from './propagation/propagation.ts';
import { proxyPathBenchmark } from './proxy/proxy-path.ts';
import { rollingDeploysBenchmark } from './rolling/rolling-deploys.ts';
import { churnBenchmark } from './routes/churn.ts';
import { routeChangeBenchmark } from './routes/route-change.ts';
import { scaleBenchmark } from './scale/scale.ts';
import { streamBenchmark } from './stream/stream-balancing.ts';

export const BENCHMARKS: readonly Benchmark[] = [
  proxyPathBenchmark, externalAuthBenchmark, propagationBenchmark, rollingDeploysBenchmark, routeChangeBenchmark, churnBenchmark, scaleBenchmark, streamBenchmark,
  controllerScaleBenchmark,
];
