// `namespace/name` references in annotations (proxy-ssl-secret,
// fastcgi-params-configmap): the names Kubernetes allows, nothing else, so a
// reference can become part of a file name or a log line as it is.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import { checkNamespace, checkObjectName } from '../names.ts';

/** ingress-nginx's BasicCharsRegex, which validates both annotations (spaces removed first). */
const INGRESS_NGINX_BASIC = /^[-/._~a-zA-Z0-9:]*$/u;

/**
 * A reference `namespace/name` (or `name` alone when `namespaceOptional`), trimmed. A value
 * ingress-nginx's validator takes but that names no valid object is refused as unsupported.
 */
export function parseObjectReference(raw: string, namespaceOptional: boolean): Checked<string> {
  const value = raw.trim();
  const parts = value.split('/');
  const valid = (parts.length === 2 && checkNamespace(parts[0]).ok && checkObjectName(parts[1]).ok)
    || (namespaceOptional && parts.length === 1 && checkObjectName(parts[0]).ok);
  if (valid) return accept(value);
  const reason = namespaceOptional ? 'expected <name> or <namespace>/<name>' : 'expected <namespace>/<name>';
  return INGRESS_NGINX_BASIC.test(raw.replaceAll(' ', '')) ? unsupported(reason) : refuse(reason);
}

/** The namespace and name of a reference parseObjectReference accepted; `name` alone is in `namespace`. */
export function splitObjectReference(reference: string, namespace: string): { readonly namespace: string; readonly name: string } {
  const slash = reference.indexOf('/');
  return slash < 0 ? { namespace, name: reference } : { namespace: reference.slice(0, slash), name: reference.slice(slash + 1) };
}
