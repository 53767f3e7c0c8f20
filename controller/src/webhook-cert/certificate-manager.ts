// The admission webhook's certificate, managed by the controller itself
// (instead of ingress-nginx's certgen Jobs): read the Secret; when it is
// missing, unusable or near expiry, issue a new serving certificate (and a
// CA only when the old one would not outlive it) and write the Secret with
// optimistic concurrency: replicas starting together race, one write wins
// and the others read the winner's certificate. Then make the
// ValidatingWebhookConfiguration's caBundle trust it, and only then serve it
// (onCertificate: the HTTPS server swaps it in without a restart). A timer
// repeats this before expiry, and now and then to pick up another
// replica's renewal.

import type { Logger } from 'pino';
import { ApiConflictError } from '../kube/cluster-writer.ts';
import type { KeyPair, WebhookCertificates } from './certificates.ts';
import { assessSecret, renewCertificates, secretDataOf, type CertificatePolicy } from './certificate-plan.ts';
import type { CertificateCluster, StoredSecret } from './cluster-access.ts';

export interface CertificateManagerOptions {
  readonly cluster: CertificateCluster;
  readonly policy: CertificatePolicy;
  readonly logger: Logger;
  /** A Warning Event on the Secret (best effort, never throws). */
  readonly warn: (secret: StoredSecret, reason: string, message: string) => void;
  /** The serving certificate to use from now on (called again after every renewal). */
  readonly onCertificate: (serving: KeyPair) => Promise<void> | void;
  readonly now?: () => Date;
  /** Longest time between two reads of the Secret (default 5 min, at most a sixth of the validity). */
  readonly resyncMs?: number;
}

export interface CertificateManager {
  /** One pass: read, renew if due, fix the caBundle, hand over the certificate. Resolves with what is now served. */
  reconcile(): Promise<WebhookCertificates>;
  /** Runs reconcile now and then on a timer (failures retry with backoff, up to a minute apart). */
  start(): void;
  stop(): void;
}

export const INVALID_SECRET_REASON = 'InvalidWebhookCertificate';
/** Writes lost to other replicas before giving up this pass (each loss means someone else wrote a certificate). */
const MAX_WRITE_ATTEMPTS = 5;
const MAX_RETRY_MS = 60_000;

export function createCertificateManager(options: CertificateManagerOptions): CertificateManager {
  const { cluster, policy, logger } = options;
  const now = options.now ?? ((): Date => new Date());
  const resyncMs = Math.max(1000, Math.min(options.resyncMs ?? 300_000, policy.validityMs / 6));
  let served: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let failures = 0;

  /** The certificates the Secret holds once this pass is done (renewed by us or by whoever won the race). */
  async function settleSecret(): Promise<{ certificates: WebhookCertificates; renewAt: Date }> {
    for (let attempt = 1; attempt <= MAX_WRITE_ATTEMPTS; attempt += 1) {
      const secret = await cluster.readSecret();
      const at = now();
      const verdict = assessSecret(secret?.data ?? null, policy, at);
      if (verdict.kind === 'use') return verdict;
      if (verdict.invalid && secret !== null) {
        logger.warn({ secret: cluster.secretRef, reason: verdict.reason }, 'admission webhook Secret is unusable; issuing a new certificate');
        options.warn(secret, INVALID_SECRET_REASON, `${verdict.reason}; a new certificate was issued`);
      }
      const certificates = renewCertificates(verdict, policy, at);
      try {
        if (secret === null) await cluster.createSecret(secretDataOf(certificates));
        else await cluster.updateSecret(secretDataOf(certificates), secret);
      } catch (err) {
        if (!(err instanceof ApiConflictError)) throw err;
        logger.info({ secret: cluster.secretRef }, 'another replica wrote the admission webhook Secret first; reading it again');
        continue;
      }
      logger.info({ secret: cluster.secretRef, reason: verdict.reason, newCa: verdict.keepCa === null }, 'admission webhook certificate issued');
      return { certificates, renewAt: new Date(at.getTime() + (2 * policy.validityMs) / 3) };
    }
    throw new Error(`admission webhook Secret ${cluster.secretRef}: still changing after ${MAX_WRITE_ATTEMPTS} reads`);
  }

  /** Every webhook of the configuration trusts exactly `bundle`. */
  async function settleCaBundle(bundle: string): Promise<void> {
    for (let attempt = 1; attempt <= MAX_WRITE_ATTEMPTS; attempt += 1) {
      const current = await cluster.readCaBundles();
      if (current === null) throw new Error('the ValidatingWebhookConfiguration does not exist (yet)');
      if (current.every((ca) => ca === bundle)) return;
      try {
        await cluster.writeCaBundle(bundle);
        logger.info('admission webhook caBundle updated');
        return;
      } catch (err) {
        if (!(err instanceof ApiConflictError)) throw err;
      }
    }
    throw new Error(`the ValidatingWebhookConfiguration kept changing for ${MAX_WRITE_ATTEMPTS} writes`);
  }

  async function reconcile(): Promise<WebhookCertificates> {
    const { certificates, renewAt } = await settleSecret();
    schedule(Math.min(resyncMs, Math.max(1000, renewAt.getTime() - now().getTime())));
    let bundleError: unknown = null;
    // Trust before use: a certificate from a new CA is served only once the API server trusts that CA.
    await settleCaBundle(certificates.caBundle).catch((err: unknown) => { bundleError = err; });
    if (certificates.serving.certPem !== served) {
      await options.onCertificate(certificates.serving);
      if (served !== null) logger.info({ secret: cluster.secretRef }, 'admission webhook serving certificate rotated');
      served = certificates.serving.certPem;
    }
    if (bundleError !== null) throw bundleError;
    return certificates;
  }

  function schedule(ms: number): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, ms);
    timer.unref();
  }

  function run(): void {
    timer = null;
    reconcile().then(
      () => { failures = 0; },
      (err: unknown) => {
        failures += 1;
        const delay = Math.min(MAX_RETRY_MS, 1000 * 2 ** Math.min(failures - 1, 6));
        logger.warn({ err, retryInMs: delay }, 'admission webhook certificate: could not settle the Secret and the caBundle');
        schedule(delay);
      },
    );
  }

  return {
    reconcile,
    start() {
      stopped = false;
      run();
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
