// Who may do what: SelfSubjectAccessReview (`kubectl auth can-i`) answered
// by the same RBAC evaluation every request gets, and impersonation
// (`kubectl --as=... --as-group=...`), which only system:masters may use,
// so tests can check a chart's least-privilege RBAC as its service account.
import type { IncomingMessage } from 'node:http';
import type { Store } from './store.ts';
import { authorize, defaultGroups, type UserInfo } from './rbac.ts';
import { ApiError, badRequest } from './errors.ts';
import { isObject, type Json, type JsonObject } from './patch.ts';

/** The identity a request acts as: its own, or the one it impersonates. */
export function effectiveUser(req: IncomingMessage, authenticated: UserInfo): UserInfo {
  const asUser = req.headers['impersonate-user'];
  if (typeof asUser !== 'string' || asUser === '') return authenticated;
  if (!authenticated.groups.includes('system:masters')) {
    throw new ApiError(403, 'Forbidden', `users "${asUser}" is forbidden: User "${authenticated.user}" cannot impersonate resource "users" in API group "" at the cluster scope`);
  }
  const raw = req.headers['impersonate-group'];
  const groups = raw === undefined ? defaultGroups(asUser) : [...(Array.isArray(raw) ? raw : [raw]), 'system:authenticated'];
  return { user: asUser, groups };
}

/** Answer a SelfSubjectAccessReview body for `user` (RBAC on or off: off allows everything). */
export function reviewAccess(store: Store, user: UserInfo, body: Json, rbac: boolean): JsonObject {
  if (!isObject(body) || !isObject(body.spec)) throw badRequest('a SelfSubjectAccessReview needs a spec');
  const spec = body.spec;
  let allowed: boolean;
  if (isObject(spec.resourceAttributes)) {
    const a = spec.resourceAttributes;
    const str = (v: Json | undefined): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
    allowed = !rbac || authorize(store, user, {
      verb: str(a.verb) ?? '', group: str(a.group) ?? '', resource: str(a.resource) ?? '',
      subresource: str(a.subresource), namespace: str(a.namespace), name: str(a.name),
    });
  } else if (isObject(spec.nonResourceAttributes)) {
    allowed = true; // discovery, /version, /healthz are open to every authenticated user here
  } else {
    throw badRequest('a SelfSubjectAccessReview needs resourceAttributes or nonResourceAttributes');
  }
  return {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: { creationTimestamp: null },
    spec, status: { allowed },
  };
}
