// The validating webhook as the controller runs it: certificate files from
// disk, reviews against the Store's current snapshot. The snapshot is the
// same one the sync builds from, so the webhook and the controller agree.

import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { BuildOptions, IngressRef, Snapshot } from '../model/types.ts';
import { reviewAdmission } from './admission-review.ts';
import type { BuildFunction } from './review.ts';
import { startWebhookServer, type ReviewOutcome, type WebhookServer } from './webhook-server.ts';

export interface AdmissionWebhookOptions {
  readonly host: string;
  readonly port: number;
  /**
   * --validating-webhook-certificate / --validating-webhook-key: PEM files; or the PEM itself,
   * when the controller manages the certificate (--validating-webhook-secret).
   */
  readonly certificate: { readonly certificateFile: string; readonly keyFile: string } | { readonly certPem: string; readonly keyPem: string };
  readonly snapshot: () => Snapshot;
  readonly buildOptions: BuildOptions;
  /** How to build the model a review checks; default buildModel (one-shot). */
  readonly build?: BuildFunction;
  readonly logger: Logger;
  /** After every request (admission metrics); `ingress` is the checked Ingress, else null. */
  readonly onReviewed?: (outcome: ReviewOutcome, ms: number, ingress: IngressRef | null) => void;
}

/** Reads the certificate files if given (a clear error naming the file if one cannot be read) and starts serving. */
export async function startAdmissionWebhook(options: AdmissionWebhookOptions): Promise<WebhookServer> {
  const read = (path: string, flag: string): Promise<string> => readFile(path, 'utf8').catch((err: unknown) => {
    throw new Error(`${flag} ${path}: ${err instanceof Error ? err.message : String(err)}`);
  });
  const source = options.certificate;
  const [certPem, keyPem] = 'certPem' in source ? [source.certPem, source.keyPem] : await Promise.all([
    read(source.certificateFile, '--validating-webhook-certificate'),
    read(source.keyFile, '--validating-webhook-key'),
  ]);
  const { logger } = options;
  return startWebhookServer({
    host: options.host,
    port: options.port,
    certPem,
    keyPem,
    logger,
    onReviewed: options.onReviewed,
    review: (body) => {
      const reply = reviewAdmission(body, options.snapshot(), { ...options.buildOptions, now: Date.now() }, options.build);
      if (reply.status === 200 && !reply.decision.allowed) {
        logger.info({ reasons: reply.decision.failures.map((f) => f.reason) }, reply.decision.message);
      }
      return reply;
    },
  });
}
