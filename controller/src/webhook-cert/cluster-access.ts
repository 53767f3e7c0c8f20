// The two objects the certificate manager touches, over the API: the
// admission Secret (get, update; create only outside the chart, which
// creates it empty so that no `create` right is needed: Kubernetes cannot
// restrict that one by name) and the ValidatingWebhookConfiguration (get,
// update). The chart grants both by name. Writes are
// optimistic: a 409 becomes ApiConflictError, and the caller reads again.

import { AdmissionregistrationV1Api, CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { ApiConflictError, apiStatusOf } from '../kube/cluster-writer.ts';

/** The Secret as last read: its decoded data and the resourceVersion an update must carry. */
export interface StoredSecret {
  readonly resourceVersion: string;
  readonly type: string;
  readonly uid: string;
  readonly data: Readonly<Record<string, string>>;
}

export interface CertificateCluster {
  /** `namespace/name` of the Secret, for messages. */
  readonly secretRef: string;
  readSecret(): Promise<StoredSecret | null>;
  /** ApiConflictError when another replica created it first. */
  createSecret(data: Readonly<Record<string, string>>): Promise<StoredSecret>;
  /** ApiConflictError when `previous` is no longer the stored version. */
  updateSecret(data: Readonly<Record<string, string>>, previous: StoredSecret): Promise<StoredSecret>;
  /** Each webhook's caBundle (decoded), or null when the configuration does not exist. */
  readCaBundles(): Promise<string[] | null>;
  /** Sets every webhook's caBundle; ApiConflictError when the configuration changed meanwhile. */
  writeCaBundle(bundle: string): Promise<void>;
}

const decode = (data: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
const encode = (data: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'utf8').toString('base64')]));

function stored(secret: V1Secret): StoredSecret {
  return {
    resourceVersion: secret.metadata?.resourceVersion ?? '',
    type: secret.type ?? 'Opaque',
    uid: secret.metadata?.uid ?? '',
    data: decode(secret.data),
  };
}

async function conflictAware<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (apiStatusOf(err) === 409) throw new ApiConflictError(`${what}: conflict`);
    throw err;
  }
}

const LABELS = { 'app.kubernetes.io/managed-by': 'resty-ingress', 'app.kubernetes.io/component': 'admission-webhook' };

export function createCertificateCluster(kc: KubeConfig, secret: { namespace: string; name: string }, webhookConfiguration: string): CertificateCluster {
  const core = kc.makeApiClient(CoreV1Api);
  const admission = kc.makeApiClient(AdmissionregistrationV1Api);
  const { namespace, name } = secret;
  return {
    secretRef: `${namespace}/${name}`,
    async readSecret() {
      try {
        return stored(await core.readNamespacedSecret({ namespace, name }));
      } catch (err) {
        if (apiStatusOf(err) === 404) return null;
        throw err;
      }
    },
    createSecret: (data) => conflictAware(`create secret ${namespace}/${name}`, async () => stored(await core.createNamespacedSecret({
      namespace,
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { namespace, name, labels: LABELS }, type: 'kubernetes.io/tls', data: encode(data) },
    }))),
    updateSecret: (data, previous) => conflictAware(`update secret ${namespace}/${name}`, async () => {
      const current = await core.readNamespacedSecret({ namespace, name });
      if (current.metadata?.resourceVersion !== previous.resourceVersion) throw new ApiConflictError(`update secret ${namespace}/${name}: changed since read`);
      // The type is immutable: a certgen Secret (Opaque) keeps its type and its labels.
      return stored(await core.replaceNamespacedSecret({ namespace, name, body: { ...current, data: encode(data), stringData: undefined } }));
    }),
    async readCaBundles() {
      try {
        const config = await admission.readValidatingWebhookConfiguration({ name: webhookConfiguration });
        return (config.webhooks ?? []).map((hook) => Buffer.from(hook.clientConfig.caBundle ?? '', 'base64').toString('utf8'));
      } catch (err) {
        if (apiStatusOf(err) === 404) return null;
        throw err;
      }
    },
    writeCaBundle: (bundle) => conflictAware(`update validatingwebhookconfiguration ${webhookConfiguration}`, async () => {
      const config = await admission.readValidatingWebhookConfiguration({ name: webhookConfiguration });
      const caBundle = Buffer.from(bundle, 'utf8').toString('base64');
      // client-node types caBundle as a string of base64; the resourceVersion read makes this update optimistic.
      const webhooks = (config.webhooks ?? []).map((hook) => ({ ...hook, clientConfig: { ...hook.clientConfig, caBundle } }));
      await admission.replaceValidatingWebhookConfiguration({ name: webhookConfiguration, body: { ...config, webhooks } });
    }),
  };
}
