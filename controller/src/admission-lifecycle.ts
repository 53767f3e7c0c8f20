// Composition of the admission webhook (--validating-webhook) and, with
// --validating-webhook-secret, the certificate manager that feeds it. Both
// start as early as they can, because the pod is not ready until the webhook
// serves (server/health-checks.ts): the certificate manager at once (it needs
// only the API server), the HTTPS server as soon as the informer caches hold
// the whole cluster (a review builds the model from the Store's snapshot; a
// half-listed cluster would allow or deny wrongly) and a certificate is
// there — both before the first NGINX configuration, not after it.

import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { startAdmissionWebhook, type AdmissionWebhookOptions, type WebhookServer } from './admission/index.ts';
import type { ControllerOptions } from './cli/index.ts';
import { splitListenAddress } from './cli/validators.ts';
import { parseObjectRef } from './kube/index.ts';
import type { Snapshot } from './model/types.ts';
import { createCertificateCluster, createCertificateManager, type CertificateManager, type CertificateManagerOptions, type KeyPair } from './webhook-cert/index.ts';

export interface AdmissionLifecycleOptions {
  readonly opts: ControllerOptions;
  readonly kc: KubeConfig;
  readonly logger: Logger;
  readonly snapshot: () => Snapshot;
  readonly build: NonNullable<AdmissionWebhookOptions['build']>;
  readonly onReviewed: NonNullable<AdmissionWebhookOptions['onReviewed']>;
  /** A Warning Event on the admission Secret (certificate manager). */
  readonly warn: CertificateManagerOptions['warn'];
  /** The webhook listens with its (first) certificate: readiness may pass. */
  readonly onServing: () => void;
}

export interface AdmissionLifecycle {
  /**
   * The Store's initial lists are complete: the webhook may review. With certificate files it
   * starts now (rejects when it cannot); with a managed certificate it starts with the first one
   * (now if already issued; a failure is retried by the certificate manager).
   */
  cachesSynced(): Promise<void>;
  stop(): Promise<void>;
}

/** null when --validating-webhook is unset. Starts the certificate manager (if any) at once. */
export function startAdmissionLifecycle(options: AdmissionLifecycleOptions): AdmissionLifecycle | null {
  const { opts, logger } = options;
  if (opts.validatingWebhook === null) return null;
  const webhookOptions = (certificate: AdmissionWebhookOptions['certificate']): AdmissionWebhookOptions => ({
    ...splitListenAddress(opts.validatingWebhook ?? ''),
    certificate,
    snapshot: options.snapshot,
    buildOptions: opts,
    // The sync's builder: a review then translates only the Ingress it checks.
    build: options.build,
    logger: logger.child({ component: 'admission' }),
    onReviewed: options.onReviewed,
  });

  let markSynced: () => void = () => undefined;
  const synced = new Promise<void>((resolve) => { markSynced = resolve; });
  let webhook: WebhookServer | null = null;
  // One start at a time: certificates handed over meanwhile are swapped in once it listens.
  let starting: Promise<WebhookServer> | null = null;
  let stopping = false;

  const start = (certificate: AdmissionWebhookOptions['certificate']): Promise<WebhookServer> => {
    starting ??= startAdmissionWebhook(webhookOptions(certificate)).then(
      (server) => { webhook = server; options.onServing(); return server; },
      (err: unknown) => { starting = null; throw err; },
    );
    return starting;
  };

  let certificates: CertificateManager | null = null;
  if (opts.validatingWebhookSecret !== null) {
    // The controller issues, stores and renews the certificate (no certgen Jobs); the server
    // starts with the first one and swaps in each renewal without a restart.
    const secret = parseObjectRef(opts.validatingWebhookSecret);
    const service = parseObjectRef(opts.validatingWebhookService ?? '');
    let latest: KeyPair | null = null;
    certificates = createCertificateManager({
      cluster: createCertificateCluster(options.kc, secret, opts.validatingWebhookConfiguration ?? ''),
      policy: {
        dnsNames: [service.name, `${service.name}.${service.namespace}`, `${service.name}.${service.namespace}.svc`],
        validityMs: opts.validatingWebhookCertificateValidityMs,
      },
      logger: logger.child({ component: 'webhook-cert' }),
      warn: options.warn,
      onCertificate: async (pair) => {
        latest = pair;
        await synced;
        if (stopping) return;
        const server = webhook ?? await start({ certPem: pair.certPem, keyPem: pair.keyPem });
        // A renewal that arrived while the server was starting (or this very one on a running server).
        if (latest !== null) server.setCertificate(latest.certPem, latest.keyPem);
      },
    });
    certificates.start();
  }

  return {
    async cachesSynced(): Promise<void> {
      markSynced();
      if (certificates !== null || stopping) return;
      await start({ certificateFile: opts.validatingWebhookCertificate ?? '', keyFile: opts.validatingWebhookKey ?? '' });
    },
    async stop(): Promise<void> {
      stopping = true;
      certificates?.stop();
      await starting?.catch(() => undefined);
      await webhook?.close();
    },
  };
}
