// Composition: the one place that wires the steps together. kube feeds the
// sync; the sync runs model → diff → render and applies through nginx/.
// Nothing here decides anything: it only connects values and lifetimes.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ControllerOptions } from './cli/index.ts';
import { createStore, loadKubeConfig, type Store } from './kube/index.ts';
import { buildModel } from './model/index.ts';
import { createNginx, findDataplane, NginxNotRunningError, postBackends, repoRoot, type NginxManager } from './nginx/index.ts';
import { createConfigRenderer } from './render/index.ts';
import { createFailureReporter } from './status/failure-reporter.ts';
import { createSync, RetryLater, type Sync } from './sync/sync.ts';

export interface Controller {
  readonly nginx: NginxManager;
  readonly sync: Sync;
  readonly store: Store;
  stop(): Promise<void>;
}

/** The templates: the repo's rootfs when running from a checkout, the image's /etc/nginx otherwise. */
function templateDir(): string {
  const inRepo = join(repoRoot(), 'rootfs/etc/nginx/template');
  return existsSync(inRepo) ? inRepo : '/etc/nginx/template';
}

/** Starts everything and resolves once the first configuration is live in NGINX. */
export async function startController(opts: ControllerOptions, logger: Logger): Promise<Controller> {
  const kc = loadKubeConfig({ kubeconfig: opts.kubeconfig ?? undefined });
  const dataplane = findDataplane();
  const luaUrl = `http://127.0.0.1:${opts.statusPort}`;
  const renderer = createConfigRenderer({
    templateDir: templateDir(),
    prefix: opts.nginxPrefix,
    listenAddress: opts.bindAddress,
    httpPort: opts.httpPort,
    statusPort: opts.statusPort,
    workerProcesses: opts.workerProcesses,
    dataplane,
  });
  const failures = createFailureReporter(logger.child({ component: 'model' }));

  let sync: Sync | null = null;
  const nginx = createNginx({
    dataplane,
    prefix: opts.nginxPrefix,
    logger: logger.child({ component: 'nginx' }),
    versionUrl: () => `${luaUrl}/config-version`,
    onRestart: async () => sync?.dataplaneReset(),
  });
  sync = createSync({
    steps: {
      snapshot: () => store.snapshot(),
      build: (snapshot) => buildModel(snapshot, opts),
      render: (model) => renderer.render(model),
    },
    dataplane: {
      started: () => nginx.started(),
      start: (conf, version) => nginx.start(conf, version),
      reload: (conf, version) => nginx.apply(conf, version).catch((err: unknown) => {
        throw err instanceof NginxNotRunningError ? new RetryLater(err.message) : err;
      }),
      pushBackends: async (backends) => { await postBackends(luaUrl, backends); },
      pushCertificates: async () => {}, // TLS (issue 5): wired once Lua serves /configuration/certificates
    },
    logger: logger.child({ component: 'sync' }),
    minIntervalMs: 1000 / opts.syncRateLimit,
    hooks: { onFailures: (list) => failures.report(list) },
  });

  // Events before the initial lists are complete would build from half a
  // cluster: hold them, then build once and reload once.
  let listed = false;
  const store = createStore(kc, {
    namespace: opts.watchNamespace,
    logger: logger.child({ component: 'kube' }),
    onChange: () => { if (listed) sync.kick(); },
  });
  await store.waitForInitialSync();
  listed = true;
  sync.kick();
  await sync.idle();
  logger.info({ version: nginx.liveVersion(), http: `${opts.bindAddress}:${opts.httpPort}` }, 'first configuration is live');

  return {
    nginx,
    sync,
    store,
    async stop(): Promise<void> {
      await store.stop();
      await sync.stop();
      await nginx.stop();
    },
  };
}
