// The controller's command line exactly as the chart renders it for some
// values, minus the flags the e2e harness sets itself (free ports, a temp
// NGINX prefix: the chart's values for these would collide between tests).
import assert from 'node:assert/strict';
import { parseManifests, renderChart } from './chart-render.ts';

const HARNESS_FLAGS = ['--http-port', '--https-port', '--healthz-port', '--status-port', '--nginx-prefix'];

interface Workload { readonly spec: { readonly template: { readonly spec: { readonly containers: readonly { readonly args: string[] }[] } } } }

/** The rendered Deployment's controller args for the default values plus `sets` (`key=value`). */
export async function chartControllerArgs(sets: readonly string[]): Promise<string[]> {
  const manifests = parseManifests(await renderChart({ name: 'default', valuesFile: null }, sets));
  const deployment = manifests.find((m) => m.kind === 'Deployment') as Workload | undefined;
  const args = deployment?.spec.template.spec.containers[0]?.args;
  assert.ok(args, 'the chart renders the controller Deployment');
  return args.filter((arg) => !HARNESS_FLAGS.some((flag) => arg.startsWith(`${flag}=`)));
}
