// Validating admission webhooks: before a write, every stored
// ValidatingWebhookConfiguration whose rules (operations, groups, versions,
// resources, scope, namespace/object selectors) match the request gets an
// admission.k8s.io/v1 AdmissionReview; a denial fails the write with the
// webhook's message. Calls go to clientConfig.url, or to a Service through
// the resolveService option (Service IPs do not route on this machine); as
// the real API server, a Service's webhook must present a certificate for
// <service>.<namespace>.svc, whatever address it is reached at.
import { randomUUID } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { KindInfo } from './kinds.ts';
import type { Store } from './store.ts';
import type { UserInfo } from './rbac.ts';
import { isObject, type JsonObject } from './patch.ts';
import { ApiError } from './errors.ts';
import { labelSelectorMatches } from './selectors.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface AdmissionRequest {
  readonly operation: Operation;
  readonly info: KindInfo;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly object: JsonObject | null;
  readonly oldObject: JsonObject | null;
  readonly user: UserInfo;
}

/** Base URL (https://127.0.0.1:PORT) serving a webhook Service, or undefined when it cannot be reached. */
export type ServiceResolver = (namespace: string, name: string, port: number) => string | undefined;

const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

function ruleMatches(rule: JsonObject, req: AdmissionRequest): boolean {
  const has = (values: string[], want: string): boolean => values.includes('*') || values.includes(want);
  const resource = req.subresource ? `${req.info.plural}/${req.subresource}` : req.info.plural;
  const resources = list(rule.resources);
  const resourceOk = resources.includes(resource) || resources.includes('*/*')
    || (!req.subresource && resources.includes('*')) || (req.subresource !== undefined && resources.includes(`${req.info.plural}/*`));
  const scope = String(rule.scope ?? '*');
  return has(list(rule.operations), req.operation) && has(list(rule.apiGroups), req.info.group)
    && has(list(rule.apiVersions), req.info.version) && resourceOk
    && (scope === '*' || (scope === 'Namespaced') === req.info.namespaced);
}

function labelsOf(obj: JsonObject | null): Record<string, string> {
  const labels = obj && isObject(obj.metadata) && isObject(obj.metadata.labels) ? obj.metadata.labels : {};
  return labels as Record<string, string>;
}

/** Where to send a review, and (for a Service) the name its certificate must carry. */
interface Target { readonly url: string; readonly servername?: string }

function post(target: Target, body: string, caPem: string | undefined, timeoutMs: number): Promise<JsonObject> {
  return new Promise((resolve, reject) => {
    const send = target.url.startsWith('https:') ? httpsRequest : httpRequest;
    const tls = { ...(caPem ? { ca: caPem } : {}), ...(target.servername ? { servername: target.servername } : {}) };
    const req = send(target.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, timeout: timeoutMs, ...tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try { resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonObject); } catch { reject(new Error(`HTTP ${res.statusCode}: the response is not JSON`)); }
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

export class Admission {
  private readonly store: Store;
  private readonly resolveService: ServiceResolver;

  constructor(store: Store, resolveService: ServiceResolver = () => undefined) {
    this.store = store;
    this.resolveService = resolveService;
  }

  private matching(req: AdmissionRequest): JsonObject[] {
    const byRule = this.store.list('validatingwebhookconfigurations.admissionregistration.k8s.io').items
      .flatMap((config) => (Array.isArray(config.webhooks) ? config.webhooks.filter(isObject) : []))
      .filter((hook) => Array.isArray(hook.rules) && hook.rules.some((r) => isObject(r) && ruleMatches(r, req)));
    // Most writes match no webhook: only then is the namespace (a copy) worth reading.
    if (byRule.length === 0) return [];
    const nsLabels = req.info.namespaced && req.namespace ? labelsOf(this.tryGetNamespace(req.namespace)) : {};
    return byRule
      .filter((hook) => !req.info.namespaced || labelSelectorMatches(hook.namespaceSelector, nsLabels))
      .filter((hook) => labelSelectorMatches(hook.objectSelector, labelsOf(req.object ?? req.oldObject)));
  }

  private tryGetNamespace(name: string): JsonObject | null {
    try { return this.store.get('namespaces', undefined, name); } catch { return null; }
  }

  /** Whether any webhook would see this request (saves the dry run when none does). */
  wants(req: Omit<AdmissionRequest, 'object' | 'oldObject' | 'user'>): boolean {
    return this.matching({ ...req, object: null, oldObject: null, user: { user: '', groups: [] } }).length > 0;
  }

  /**
   * Resolves with the webhooks' warnings when every matching webhook allows the request; throws
   * the denial otherwise. The API server relays the warnings to the client as `Warning` headers.
   */
  async review(req: AdmissionRequest): Promise<string[]> {
    const warnings: string[] = [];
    for (const hook of this.matching(req)) {
      const name = String(hook.name ?? '');
      const uid = randomUUID();
      const review = {
        apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
        request: {
          uid, kind: { group: req.info.group, version: req.info.version, kind: req.info.kind },
          resource: { group: req.info.group, version: req.info.version, resource: req.info.plural },
          ...(req.subresource ? { subResource: req.subresource } : {}),
          name: req.name ?? (isObject(req.object?.metadata) ? req.object.metadata.name : undefined), namespace: req.namespace,
          operation: req.operation, userInfo: { username: req.user.user, groups: req.user.groups },
          object: req.object, oldObject: req.oldObject, dryRun: false,
        },
      };
      let answer: JsonObject;
      try {
        answer = await post(this.targetOf(hook), JSON.stringify(review), this.caOf(hook), Number(hook.timeoutSeconds ?? 10) * 1000);
      } catch (err) {
        if (hook.failurePolicy === 'Ignore') continue;
        throw new ApiError(500, 'InternalError', `Internal error occurred: failed calling webhook "${name}": ${(err as Error).message}`);
      }
      const response = isObject(answer.response) ? answer.response : {};
      if (response.uid !== uid && hook.failurePolicy !== 'Ignore') {
        throw new ApiError(500, 'InternalError', `Internal error occurred: webhook "${name}" answered with the wrong uid`);
      }
      if (response.allowed !== true && response.uid === uid) {
        const status = isObject(response.status) ? response.status : {};
        const code = typeof status.code === 'number' && status.code >= 400 ? status.code : 400;
        throw new ApiError(code, String(status.reason ?? ''), `admission webhook "${name}" denied the request: ${String(status.message ?? 'without explanation')}`);
      }
      if (Array.isArray(response.warnings)) warnings.push(...response.warnings.filter((w): w is string => typeof w === 'string'));
    }
    return warnings;
  }

  private targetOf(hook: JsonObject): Target {
    const config = isObject(hook.clientConfig) ? hook.clientConfig : {};
    if (typeof config.url === 'string') return { url: config.url };
    const svc = isObject(config.service) ? config.service : {};
    const base = this.resolveService(String(svc.namespace ?? ''), String(svc.name ?? ''), Number(svc.port ?? 443));
    if (!base) throw new Error(`service ${String(svc.namespace)}/${String(svc.name)} cannot be reached from this API server`);
    return { url: base + String(svc.path ?? '/'), servername: `${String(svc.name)}.${String(svc.namespace)}.svc` };
  }

  private caOf(hook: JsonObject): string | undefined {
    const config = isObject(hook.clientConfig) ? hook.clientConfig : {};
    return typeof config.caBundle === 'string' && config.caBundle ? Buffer.from(config.caBundle, 'base64').toString('utf8') : undefined;
  }
}
