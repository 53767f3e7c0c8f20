// Composition: the one place that wires the steps together. kube feeds the
// sync; the sync runs model → diff → render and applies through nginx/.
// Nothing here decides anything: it only connects values and lifetimes.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ControllerOptions } from './cli/index.ts';
import { createApiAvailability, createStore, loadKubeConfig, parseObjectRef, type Store } from './kube/index.ts';
import { createModelBuilder } from './model/index.ts';
import {
  applyBackends, applyPatch, createNginx, patchBackends, findDataplane, getStatus, NginxConfigError, NginxError, nginxProblems, NginxNotRunningError, problemText, repoRoot,
  type NginxManager,
} from './nginx/index.ts';
import { createConfigRenderer, defaultCertificatePaths, ownersOfLine } from './render/index.ts';
import { metricsLogPath, streamFeedSocketPath } from './render/render-options.ts';
import { feedStreams, readStreamStats } from './nginx/stream-feed.ts';
import { excludesUpstreamTimes } from './metrics/index.ts';
import { createCertificatePusher } from './nginx/certificate-push.ts';
import { applyPending, postCredentials, postRoutes } from './nginx/lua-routes.ts';
import { writeSelfSignedDefault } from './tls/default-certificate.ts';
import { generateKeyPem } from './tls/self-signed.ts';
import { writeBackendTlsFiles } from './nginx/backend-tls-files.ts';
import { writeTlsSessionFiles } from './nginx/tls-session-files.ts';
import { referencedConfigMaps } from './model/fastcgi-params.ts';
import { referencedHeaderConfigMaps } from './model/header-settings-build.ts';
import { readSettings } from './model/features/parse.ts';
import { startAdmissionLifecycle } from './admission-lifecycle.ts';
import { sameStaticPart } from './diff/decide.ts';
import { indexIngressClasses, isOurIngress } from './model/ingress-class.ts';
import type { Model, Snapshot } from './model/types.ts';
import { createClusterReporting } from './status/index.ts';
import { mergeHooks, requestMetricsOptions, startObservability, type Observability } from './server/observability.ts';
import { ConfigRefused, createSync, RetryLater, type Sync } from './sync/sync.ts';
import { createStreamPortCheck } from './stream-port-check.ts';

export interface Controller {
  readonly nginx: NginxManager;
  readonly sync: Sync;
  readonly store: Store;
  /** /healthz, /readyz, /metrics and the metrics setters (e.g. leader election). */
  readonly observability: Observability;
  /** SIGTERM: health checks fail from now on; NGINX keeps serving until stop(). */
  beginShutdown(): void;
  /** Stops reacting (no sync, no status run), clears status, releases the Lease, then NGINX quits. */
  stop(): Promise<void>;
}

/**
 * The templates: RESTY_TEMPLATE_DIR when set (a modified copy: tests make NGINX refuse one
 * Ingress's configuration this way), else the repo's rootfs when running from a checkout, else
 * the image's /etc/nginx.
 */
function templateDir(env: NodeJS.ProcessEnv): string {
  if (env.RESTY_TEMPLATE_DIR) return env.RESTY_TEMPLATE_DIR;
  const inRepo = join(repoRoot(), 'rootfs/etc/nginx/template');
  return existsSync(inRepo) ? inRepo : '/etc/nginx/template';
}

/** NGINX's own error lines for an Event, else the error's message. */
function describeReloadError(err: unknown): string {
  if (err instanceof ConfigRefused) return err.detail;
  const problems = err instanceof NginxError ? nginxProblems(err.nginxOutput) : [];
  if (problems.length > 0) return problems.join('; ');
  return err instanceof Error ? err.message : String(err);
}

/** `nginx -t` refused the configuration (NGINX said why): the sync's ConfigRefused, so it can leave the Ingress at fault out. */
function asRefusal(err: unknown): unknown {
  if (!(err instanceof NginxConfigError) || !err.refused) return err;
  return new ConfigRefused(problemText(err.nginxOutput), err.line, { cause: err });
}

function throwAsRefusal(err: unknown): never {
  throw asRefusal(err);
}

/** Our Ingresses in a snapshot, selected exactly as the builder selects them. */
function ourIngresses(snapshot: Snapshot, opts: ControllerOptions): Snapshot['ingresses'] {
  const classes = indexIngressClasses(snapshot.ingressClasses, opts);
  return snapshot.ingresses.filter((ingress) => isOurIngress(ingress, classes, opts));
}

/** How long the start waits for the ConfigMaps the first configuration reads by name (one not granted never lists). */
const REFERENCED_LIST_WAIT_MS = 5000;

/**
 * Starts the watches of the ConfigMaps the first configuration reads by name (proxy-set-headers,
 * add-headers, fastcgi-params-configmap, auth-proxy-set-headers) and waits, bounded, for their lists: otherwise the first
 * NGINX configuration after every start would lack the add-headers (security headers, often) until
 * the watches the first build starts have listed them.
 */
async function listReferencedConfigMaps(store: Store, opts: ControllerOptions): Promise<void> {
  const snapshot = store.snapshot();
  const settings = readSettings(snapshot.configMaps, opts.configMap).settings;
  const refs = [...referencedConfigMaps(ourIngresses(snapshot, opts), opts.annotationsPrefix, settings.crossNamespace.allow), ...referencedHeaderConfigMaps(settings)];
  if (refs.length === 0) return;
  store.watchReferencedConfigMaps(refs);
  const timer = new AbortController();
  await Promise.race([store.waitForInitialSync(), sleep(REFERENCED_LIST_WAIT_MS, undefined, { signal: timer.signal }).catch(() => {})]);
  timer.abort();
}

/** Starts everything and resolves once the first configuration is live in NGINX. */
export async function startController(opts: ControllerOptions, logger: Logger, registry: Registry): Promise<Controller> {
  const kc = loadKubeConfig({ kubeconfig: opts.kubeconfig ?? undefined, apiserverHost: opts.apiserverHost ?? undefined, certificateAuthority: opts.certificateAuthority ?? undefined });
  const dataplane = findDataplane();
  const luaUrl = `http://127.0.0.1:${opts.statusPort}`;
  const certificatePusher = createCertificatePusher(luaUrl);
  const renderer = createConfigRenderer({
    templateDir: templateDir(process.env),
    prefix: opts.nginxPrefix,
    listenAddress: opts.bindAddress,
    httpPort: opts.httpPort,
    httpsPort: opts.httpsPort,
    statusPort: opts.statusPort,
    workerProcesses: opts.workerProcesses,
    dataplane,
    // --enable-metrics=false: no metrics log and no per-request labels in nginx.conf.
    requestMetrics: opts.enableMetrics,
    // --enable-ssl-passthrough: the HTTPS port belongs to stream {} (render/ssl-passthrough-view.ts).
    sslPassthrough: opts.enableSslPassthrough === true,
    // Both histograms they feed excluded: NGINX writes "-" instead of formatting the times.
    metricsUpstreamTimes: !excludesUpstreamTimes(opts.excludeSocketMetrics),
  });
  // Keeps each unchanged Ingress's translation between syncs (model/ingress-translation.ts).
  const builder = createModelBuilder();
  // The sync's preview of added Ingresses (sync/pending-preview.ts) builds them alone: its own caches.
  const previewBuilder = createModelBuilder();

  let sync: Sync | null = null;
  // A TCP/UDP port NGINX could not bind is left out before the reload (stream-port-check.ts).
  const streamPorts = createStreamPortCheck(opts.bindAddress, { TCP: opts.tcpServicesConfigMap, UDP: opts.udpServicesConfigMap });
  let backendTlsKept = new Set<string>();
  let tlsSessionKept = new Set<string>();
  let streamFeedVersion = 0;
  let referencesFrom: { ingresses: Snapshot['ingresses'] | null; classes: Snapshot['ingressClasses'] | null; allow: boolean; headers: string } = { ingresses: null, classes: null, allow: false, headers: '' };
  const nginx = createNginx({
    dataplane,
    prefix: opts.nginxPrefix,
    logger: logger.child({ component: 'nginx' }),
    versionUrl: () => `${luaUrl}/config-version`,
    onRestart: async () => sync?.dataplaneReset(),
  });
  // Up before the first sync: probes answer 500 until the first configuration is live.
  const observability = await startObservability({
    registry,
    logger: logger.child({ component: 'healthz' }),
    host: opts.healthzHost ?? opts.bindAddress,
    port: opts.healthzPort,
    healthPath: opts.healthCheckPath,
    statusUrl: luaUrl,
    ...requestMetricsOptions(opts),
    metricsLogPath: metricsLogPath(opts.nginxPrefix),
    electionId: opts.electionId,
    ingressClass: opts.ingressClass,
    nginxPid: () => nginx.pid(),
    liveVersion: () => nginx.liveVersion(),
    luaVersion: () => getStatus(luaUrl, { timeoutMs: 2000 }).then((s) => s.version, () => null),
    // No stream {} running: no feed socket, nothing to read.
    streamTotals: () => readStreamStats(streamFeedSocketPath(opts.nginxPrefix)).then((stats) => stats.listeners, () => null),
    // Ready only once the webhook serves too: the API server calls ready pods only.
    admissionWebhook: opts.validatingWebhook !== null,
  });
  // One for every API client: an outage is one line when it starts and one when it ends.
  const availability = createApiAvailability(logger.child({ component: 'kube-api' }));
  // Events on Ingresses, and Ingress status written by the Lease holder.
  const reporting = createClusterReporting({
    kc, options: opts, logger, availability,
    snapshot: () => store.snapshot(),
    ours: (snapshot) => ourIngresses(snapshot, opts),
    // Live = NGINX runs a configuration this model would not change statically.
    isLive: (model: Model) => {
      const running = sync?.running() ?? null;
      return running !== null && sameStaticPart(running, model);
    },
    describeReloadError,
    onLeaderChange: (leading) => observability.metrics.setLeader(leading),
  });
  // The webhook's certificate is issued now, in parallel with the lists and the first configuration;
  // the webhook serves once the lists are complete (admission-lifecycle.ts).
  const admission = startAdmissionLifecycle({
    opts, kc, logger,
    snapshot: () => store.snapshot(),
    build: builder.build,
    onReviewed: (outcome, ms, ingress) => observability.admissionReviewed(outcome, ms, ingress),
    warn: (stored, reason, message) => {
      const secret = parseObjectRef(opts.validatingWebhookSecret ?? '');
      reporting.recorder.record({ apiVersion: 'v1', kind: 'Secret', namespace: secret.namespace, name: secret.name, uid: stored.uid }, 'Warning', reason, message);
    },
    onServing: () => observability.markWebhookServing(),
  });
  sync = createSync({
    steps: {
      snapshot: () => { observability.snapshotTaken(); return store.snapshot(); },
      // The clock enters here, not in the pure builder: it only flags expired certificates.
      // No exclusion is no option: the admission webhook's builds (same builder) then share the routing cache.
      build: (snapshot, exclude) => streamPorts.check(
        builder.build(snapshot, { ...opts, now: Date.now(), exclude: exclude.size > 0 ? exclude : undefined }), sync?.running() ?? null),
      preview: (snapshot) => previewBuilder.build(snapshot, { ...opts, now: Date.now() }),
      // The proxy-ssl-secret and ticket key files the conf names exist before any `nginx -t` reads it.
      render: (model) => {
        backendTlsKept = writeBackendTlsFiles(opts.nginxPrefix, model.backendTls, backendTlsKept);
        tlsSessionKept = writeTlsSessionFiles(opts.nginxPrefix, model.settings.tlsSession, tlsSessionKept);
        return renderer.render(model);
      },
      owners: ownersOfLine,
    },
    dataplane: {
      started: () => nginx.started(),
      start: (conf, version, options) => nginx.start(conf, version, options).catch(throwAsRefusal),
      reload: (conf, version, options) => nginx.apply(conf, version, options).catch((err: unknown) => {
        throw err instanceof NginxNotRunningError ? new RetryLater(err.message) : asRefusal(err);
      }),
      validateAhead: (conf, version) => nginx.validateAhead(conf, version),
      validate: (conf) => nginx.validate(conf).catch(throwAsRefusal),
      // Applied = every live worker holds it, not just Lua's store (lua-client.ts, waitForWorkers).
      pushBackends: async (backends) => { await applyBackends(luaUrl, backends); },
      patchBackends: async (patch, options) => { await (options?.stored === true ? patchBackends(luaUrl, patch) : applyPatch(luaUrl, patch)); },
      // Only what changed, in PATCHes far below the endpoint's body limit (certificate-push.ts).
      pushCertificates: async (certificates) => { await certificatePusher.push(certificates); },
      pushRoutes: async (routes) => { await postRoutes(luaUrl, routes); },
      pushCredentials: async (credentials) => { await postCredentials(luaUrl, credentials); },
      // New plain hosts the catch-all serves until their reload (sync/pending-hosts.ts).
      pushPending: (pending) => applyPending(luaUrl, pending),
      // TCP/UDP endpoints to njs (stream-feed.ts); no socket = NGINX runs no stream {} yet.
      pushStreams: async (streams) => {
        try {
          await feedStreams(streamFeedSocketPath(opts.nginxPrefix), ++streamFeedVersion, streams);
          return true;
        } catch (err) {
          const code = (err as { code?: unknown }).code;
          if (code === 'ENOENT' || code === 'ECONNREFUSED') return false;
          throw err;
        }
      },
    },
    logger: logger.child({ component: 'sync' }),
    minIntervalMs: 1000 / opts.syncRateLimit,
    // Syncs run up to 50/s for endpoints; a reload waits 100 ms from the first
    // static change it carries, so one `kubectl apply` of several Ingresses is one reload.
    reloadSettleMs: 100,
    // The master's parse refuses a bad file by itself: `nginx -t` first only where a change brings a snippet or PEM.
    skipNginxTestWhenTrusted: true,
    hooks: mergeHooks(reporting.hooks, observability.syncHooks, {
      onBuilt: (built, snapshot) => {
        // The ConfigMaps our Ingresses (fastcgi-params-configmap, auth-proxy-set-headers) and the settings (proxy-set-headers, add-headers)
        // name are watched by name (kube/store.ts). Looked for again only when the Ingresses, the IngressClasses
        // or the ConfigMap's settings changed (not per endpoint sync).
        const allow = built.model.settings.crossNamespace.allow;
        const headerRefs = referencedHeaderConfigMaps(built.model.settings);
        const headers = headerRefs.map((ref) => `${ref.namespace}/${ref.name}`).join(' ');
        if (snapshot.ingresses !== referencesFrom.ingresses || snapshot.ingressClasses !== referencesFrom.classes || allow !== referencesFrom.allow
          || headers !== referencesFrom.headers) {
          referencesFrom = { ingresses: snapshot.ingresses, classes: snapshot.ingressClasses, allow, headers };
          store.watchReferencedConfigMaps([...referencedConfigMaps(ourIngresses(snapshot, opts), opts.annotationsPrefix, allow), ...headerRefs]);
        }
        observability.modelBuilt(built);
        reporting.built(built.model, snapshot);
      },
    }),
  });

  // Events before the initial lists are complete would build from half a
  // cluster: hold them, then build once and reload once.
  let listed = false;
  const store = createStore(kc, {
    namespace: opts.watchNamespace,
    // Read by name in their own namespaces, whatever --watch-namespace says (the chart grants just these):
    // --configmap and the TCP/UDP services ConfigMaps.
    configMaps: [opts.configMap, opts.tcpServicesConfigMap, opts.udpServicesConfigMap]
      .filter((key): key is string => key !== null).map((key) => parseObjectRef(key)),
    logger: logger.child({ component: 'kube' }),
    availability,
    onChange: (kind) => { observability.objectChanged(kind); if (listed) sync.kick(); },
  });
  // NGINX's HTTPS listener needs a certificate file before it starts; Lua replaces it per SNI.
  // Made while the lists are answered: the key on the thread pool, then node-forge's signature
  // (~40 ms) on the event loop.
  const placeholder = writeSelfSignedDefault(defaultCertificatePaths(opts.nginxPrefix), await generateKeyPem());
  logger.info({ serial: placeholder.serial }, 'self-signed default certificate written');
  await store.waitForInitialSync();
  await listReferencedConfigMaps(store, opts);
  // Before the first configuration: readiness waits for both, so neither waits for the other.
  await admission?.cachesSynced();
  listed = true;
  sync.kick();
  await sync.idle();
  if (sync.running() !== null) observability.markFirstConfigLive();
  logger.info({ version: nginx.liveVersion(), http: `${opts.bindAddress}:${opts.httpPort}` }, 'first configuration is live');
  reporting.start();

  return {
    nginx,
    sync,
    store,
    observability,
    beginShutdown: () => observability.beginShutdown(),
    async stop(): Promise<void> {
      observability.beginShutdown();
      await admission?.stop();
      // Stop reacting first: every status write below comes back as a watch event, and a sync
      // it started would publish the address again while it is being cleared.
      await sync.stop();
      // Clears status (the store still runs: its view is current), then releases the Lease.
      await reporting.stop();
      await store.stop();
      await nginx.stop();
      await observability.close();
    },
  };
}
