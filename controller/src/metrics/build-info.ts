// nginx_ingress_controller_build_info: a constant 1 labelled with the build,
// as ingress-nginx exports it (release, build, repository; the registry adds
// controller_namespace/class/pod). Dashboards and alerts use it to tell
// versions apart during a rollout.

import { Gauge, type Registry } from 'prom-client';
import packageJson from '../../../package.json' with { type: 'json' };

export interface BuildInfo {
  /** `v` + the package version, as ingress-nginx's `v1.15.1`. */
  readonly release: string;
  /** The commit the image was built from; "UNKNOWN" when the build did not say (ingress-nginx's default). */
  readonly build: string;
  readonly repository: string;
}

/** This build: the package version, and the commit from RESTY_INGRESS_BUILD_COMMIT when the image sets it. */
export function currentBuildInfo(env: NodeJS.ProcessEnv = process.env): BuildInfo {
  const commit = env.RESTY_INGRESS_BUILD_COMMIT ?? '';
  return { release: `v${packageJson.version}`, build: /^[0-9a-f]{7,40}$/u.test(commit) ? commit : 'UNKNOWN', repository: packageJson.name };
}

export function registerBuildInfo(registry: Registry, info: BuildInfo): void {
  const gauge = new Gauge({
    name: 'nginx_ingress_controller_build_info',
    help: "A metric with a constant '1' labeled with information about the build.",
    labelNames: ['release', 'build', 'repository'],
    registers: [registry],
  });
  gauge.set({ release: info.release, build: info.build, repository: info.repository }, 1);
}
