// Manifests as a user writes them (YAML for `kubectl apply -f -`), built
// from a few named fields so each scenario states only what it is about.
import { stringify } from 'yaml';

/** Several objects as one multi-document YAML stream. */
export function yamlDocuments(objects: readonly object[]): string {
  return objects.map((object) => stringify(object)).join('---\n');
}

export interface AppInput {
  readonly name: string;
  readonly namespace?: string;
  readonly replicas?: number;
  /** The simulator's per-pod readiness delay (ms); small keeps rollouts quick. */
  readonly readyDelayMs?: number;
}

/** A Deployment of echo pods and a Service `name` on port 80 → containerPort 8080. */
export function appManifest(input: AppInput): string {
  const metadata = { name: input.name, namespace: input.namespace ?? 'default' };
  const annotations = input.readyDelayMs === undefined ? {} : { 'simulator.resty-ingress.io/ready-delay-ms': String(input.readyDelayMs) };
  return yamlDocuments([
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { ...metadata, annotations },
      spec: {
        replicas: input.replicas ?? 2,
        selector: { matchLabels: { app: input.name } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        template: {
          metadata: { labels: { app: input.name } },
          spec: { containers: [{ name: 'echo', image: 'echo:1', ports: [{ name: 'http', containerPort: 8080 }] }] },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata,
      spec: { selector: { app: input.name }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    },
  ]);
}

export interface IngressPathInput {
  readonly path: string;
  readonly service: string;
  readonly pathType?: 'Prefix' | 'Exact' | 'ImplementationSpecific';
}

export interface IngressInput {
  readonly name: string;
  readonly namespace?: string;
  readonly host: string;
  readonly paths: readonly IngressPathInput[];
  /** spec.ingressClassName; null leaves it out (legacy annotation or classless). */
  readonly className?: string | null;
  readonly annotations?: Readonly<Record<string, string>>;
}

export function ingressManifest(input: IngressInput): string {
  const className = input.className === undefined ? 'resty' : input.className;
  return yamlDocuments([{
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: input.name, namespace: input.namespace ?? 'default', annotations: input.annotations ?? {} },
    spec: {
      ...(className === null ? {} : { ingressClassName: className }),
      rules: [{
        host: input.host,
        http: {
          paths: input.paths.map((p) => ({
            path: p.path,
            pathType: p.pathType ?? 'Prefix',
            backend: { service: { name: p.service, port: { number: 80 } } },
          })),
        },
      }],
    },
  }]);
}

/** An IngressClass `name` owned by `controller` (the controller's --controller-class). */
export function ingressClassManifest(name = 'resty', controller = 'resty-ingress.dev/controller'): string {
  return yamlDocuments([{ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name }, spec: { controller } }]);
}
