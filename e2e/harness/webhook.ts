// The validating webhook as a test registers it: a serving certificate for
// 127.0.0.1 in a temp folder, the controller's flags that serve it, and the
// ValidatingWebhookConfiguration that sends the API server's reviews there.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeServingCert } from '../cluster/apiserver/connection.ts';
import { yamlDocuments } from './manifests.ts';

/** The webhook's serving certificate and key files, and the CA (the certificate itself) for the caBundle. */
export interface WebhookCertificate { readonly cert: string; readonly key: string; readonly ca: string }

export async function webhookCertificateFiles(t: { after(fn: () => Promise<void>): void }): Promise<WebhookCertificate> {
  const dir = await mkdtemp(join(tmpdir(), 'resty-e2e-webhook-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const serving = await makeServingCert('127.0.0.1');
  await writeFile(join(dir, 'tls.crt'), serving.cert);
  await writeFile(join(dir, 'tls.key'), serving.key);
  return { cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key'), ca: serving.cert };
}

export function webhookConfiguration(port: number, caPem: string): string {
  return yamlDocuments([{
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'resty-ingress-admission' },
    webhooks: [{
      name: 'validate.resty-ingress.dev',
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy: 'Fail',
      clientConfig: { url: `https://127.0.0.1:${port}/networking/v1/ingresses`, caBundle: Buffer.from(caPem).toString('base64') },
      rules: [{ apiGroups: ['networking.k8s.io'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['ingresses'] }],
    }],
  }]);
}


/** The controller flags that serve the webhook on 127.0.0.1:`port`. */
export function webhookArgs(port: number, tls: WebhookCertificate): string[] {
  return ['--validating-webhook', `127.0.0.1:${port}`, '--validating-webhook-certificate', tls.cert, '--validating-webhook-key', tls.key];
}
