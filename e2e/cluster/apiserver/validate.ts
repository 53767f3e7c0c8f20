// Modest but real validation: the field errors (422 Invalid, with field
// paths) a user would hit first with a real API server for these kinds.
import type { KindInfo } from './kinds.ts';
import type { JsonObject } from './patch.ts';
import { isObject } from './patch.ts';
import { invalid, type StatusCause } from './errors.ts';

const LABEL_1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN_1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_KEY_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

type Check = (obj: JsonObject, causes: StatusCause[]) => void;

function nameCheck(info: KindInfo): (name: string) => string | undefined {
  if (info.group === 'rbac.authorization.k8s.io') {
    return (n) => (n === '.' || n === '..' || /[/%]/.test(n) ? 'may not be "." or ".." and may not contain "/" or "%"' : undefined);
  }
  if (info.kind === 'Namespace' || info.kind === 'Service') {
    return (n) => (n.length > 63 || !LABEL_1123.test(n) ? 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\' (at most 63)' : undefined);
  }
  return (n) => (n.length > 253 || !SUBDOMAIN_1123.test(n) ? 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\'' : undefined);
}

function checkLabels(labels: unknown, causes: StatusCause[]): void {
  if (labels === undefined) return;
  if (!isObject(labels)) { causes.push({ field: 'metadata.labels', message: 'must be a map of strings' }); return; }
  for (const [key, value] of Object.entries(labels)) {
    const name = key.includes('/') ? key.slice(key.indexOf('/') + 1) : key;
    if (!LABEL_KEY_NAME.test(name) || name.length > 63) causes.push({ field: 'metadata.labels', message: `Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.'` });
    if (typeof value !== 'string' || value.length > 63 || !LABEL_VALUE.test(value)) causes.push({ field: 'metadata.labels', message: `Invalid value: "${String(value)}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'` });
  }
}

function port(value: unknown, field: string, causes: StatusCause[], required: boolean): void {
  if (value === undefined && !required) return;
  if (typeof value === 'string' && value !== '' && !/^\d+$/.test(value)) return; // named port
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) causes.push({ field, message: `Invalid value: ${JSON.stringify(value ?? null)}: must be between 1 and 65535, inclusive` });
}

function checkContainers(spec: unknown, field: string, causes: StatusCause[]): void {
  const containers = isObject(spec) ? spec.containers : undefined;
  if (!Array.isArray(containers) || containers.length === 0) { causes.push({ field: `${field}.containers`, message: 'Required value', reason: 'FieldValueRequired' }); return; }
  containers.forEach((c, i) => {
    if (!isObject(c) || typeof c.name !== 'string' || !LABEL_1123.test(c.name)) causes.push({ field: `${field}.containers[${i}].name`, message: 'Required value: a DNS-1123 label' });
    if (isObject(c) && (typeof c.image !== 'string' || c.image === '')) causes.push({ field: `${field}.containers[${i}].image`, message: 'Required value', reason: 'FieldValueRequired' });
    if (isObject(c) && Array.isArray(c.ports)) c.ports.forEach((p, j) => port(isObject(p) ? p.containerPort : undefined, `${field}.containers[${i}].ports[${j}].containerPort`, causes, true));
  });
}

function checkWorkload(obj: JsonObject, causes: StatusCause[]): void {
  const spec = isObject(obj.spec) ? obj.spec : {};
  if (spec.replicas !== undefined && (!Number.isInteger(spec.replicas) || (spec.replicas as number) < 0)) causes.push({ field: 'spec.replicas', message: 'must be greater than or equal to 0' });
  const selector = isObject(spec.selector) ? spec.selector : undefined;
  const template = isObject(spec.template) ? spec.template : {};
  const templateLabels = isObject(template.metadata) && isObject(template.metadata.labels) ? template.metadata.labels : {};
  if (!selector) causes.push({ field: 'spec.selector', message: 'Required value', reason: 'FieldValueRequired' });
  else if (isObject(selector.matchLabels)) {
    for (const [k, v] of Object.entries(selector.matchLabels)) {
      if (templateLabels[k] !== v) causes.push({ field: 'spec.template.metadata.labels', message: `Invalid value: selector does not match template labels (${k}=${String(v)})` });
    }
  }
  checkContainers(template.spec, 'spec.template.spec', causes);
}

function checkService(obj: JsonObject, causes: StatusCause[]): void {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const types = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];
  if (spec.type !== undefined && !types.includes(String(spec.type))) causes.push({ field: 'spec.type', message: `Unsupported value: ${JSON.stringify(spec.type)}`, reason: 'FieldValueNotSupported' });
  if (Array.isArray(spec.ports)) spec.ports.forEach((p, i) => {
    port(isObject(p) ? p.port : undefined, `spec.ports[${i}].port`, causes, true);
    port(isObject(p) ? p.targetPort : undefined, `spec.ports[${i}].targetPort`, causes, false);
  });
}

function checkIngress(obj: JsonObject, causes: StatusCause[]): void {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const rules = Array.isArray(spec.rules) ? spec.rules : [];
  rules.forEach((rule, i) => {
    const paths = isObject(rule) && isObject(rule.http) && Array.isArray(rule.http.paths) ? rule.http.paths : [];
    paths.forEach((p, j) => {
      const field = `spec.rules[${i}].http.paths[${j}]`;
      if (!isObject(p)) return;
      if (typeof p.path === 'string' && !p.path.startsWith('/')) causes.push({ field: `${field}.path`, message: `Invalid value: "${p.path}": must be an absolute path` });
      if (!['Exact', 'Prefix', 'ImplementationSpecific'].includes(String(p.pathType))) causes.push({ field: `${field}.pathType`, message: 'Required value: pathType must be one of Exact, Prefix, ImplementationSpecific', reason: 'FieldValueRequired' });
      const backend = isObject(p.backend) ? p.backend : {};
      if (!isObject(backend.service) && !isObject(backend.resource)) causes.push({ field: `${field}.backend`, message: 'Required value: one of service or resource', reason: 'FieldValueRequired' });
      if (isObject(backend.service) && isObject(backend.service.port)) port(backend.service.port.number, `${field}.backend.service.port.number`, causes, backend.service.port.name === undefined);
    });
  });
}

function checkDataKeys(obj: JsonObject, causes: StatusCause[]): void {
  for (const field of ['data', 'binaryData', 'stringData']) {
    const data = obj[field];
    if (isObject(data)) for (const key of Object.keys(data)) if (!CONFIG_KEY.test(key)) causes.push({ field: `${field}[${key}]`, message: `Invalid value: "${key}": a valid config key must consist of alphanumeric characters, '-', '_' or '.'` });
  }
}

const BY_KIND: Readonly<Record<string, Check>> = {
  Deployment: checkWorkload, ReplicaSet: checkWorkload, DaemonSet: checkWorkload,
  Service: checkService, Ingress: checkIngress, ConfigMap: checkDataKeys, Secret: checkDataKeys,
  Pod: (obj, causes) => checkContainers(obj.spec, 'spec', causes),
};

/** Throws 422 Invalid listing every problem found in `obj`. */
export function validateObject(info: KindInfo, obj: JsonObject): void {
  const causes: StatusCause[] = [];
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const name = typeof meta.name === 'string' ? meta.name : '';
  if (!name) causes.push({ field: 'metadata.name', message: 'Required value: name or generateName is required', reason: 'FieldValueRequired' });
  else {
    const problem = nameCheck(info)(name);
    if (problem) causes.push({ field: 'metadata.name', message: `Invalid value: "${name}": ${problem}` });
  }
  checkLabels(meta.labels, causes);
  if (meta.annotations !== undefined && (!isObject(meta.annotations) || Object.values(meta.annotations).some((v) => typeof v !== 'string'))) {
    causes.push({ field: 'metadata.annotations', message: 'must be a map of strings' });
  }
  BY_KIND[info.kind]?.(obj, causes);
  if (causes.length > 0) throw invalid(info.kind, info.group, name, causes);
}
