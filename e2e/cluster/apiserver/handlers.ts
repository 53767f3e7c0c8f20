// One request on a resource URL → one store call: the verb from the method
// and query, then the response in the form the client negotiated.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiVersionOf, type KindInfo } from './kinds.ts';
import type { ResourceRoute } from './http.ts';
import { decodeBody, readBody, renderingOf, sendJson } from './http.ts';
import { applyPatch, isObject, patchKindOf, type Json, type JsonObject } from './patch.ts';
import { badRequest, conflict, gone, methodNotAllowed } from './errors.ts';
import type { Store } from './store.ts';
import { toPartial, toTable } from './table.ts';
import { serveWatch } from './watch-http.ts';
import { mapFieldSelector, viewFor } from './event-view.ts';
import type { Admission, Operation } from './admission.ts';
import type { UserInfo } from './rbac.ts';

export interface HandlerContext {
  readonly store: Store;
  readonly bookmarkIntervalMs: number;
  /** open watch responses, so stop()/dropWatches() can end them */
  readonly openWatches: Set<ServerResponse>;
  readonly admission: Admission;
}

export function verbOf(method: string, route: ResourceRoute, query: URLSearchParams): string {
  switch (method) {
    case 'GET': return route.name ? 'get' : (query.get('watch') === 'true' || query.get('watch') === '1' ? 'watch' : 'list');
    case 'POST': return 'create';
    case 'PUT': return 'update';
    case 'PATCH': return 'patch';
    case 'DELETE': return route.name ? 'delete' : 'deletecollection';
    default: throw methodNotAllowed(`method ${method} is not supported`);
  }
}

function toScale(obj: JsonObject): JsonObject {
  const m = obj.metadata as JsonObject;
  const spec = isObject(obj.spec) ? obj.spec : {};
  const status = isObject(obj.status) ? obj.status : {};
  const matchLabels = isObject(spec.selector) && isObject(spec.selector.matchLabels) ? spec.selector.matchLabels : {};
  return {
    kind: 'Scale', apiVersion: 'autoscaling/v1',
    metadata: { name: m.name ?? null, namespace: m.namespace ?? null, uid: m.uid ?? null, resourceVersion: m.resourceVersion ?? null, creationTimestamp: m.creationTimestamp ?? null },
    spec: { replicas: typeof spec.replicas === 'number' ? spec.replicas : 0 },
    status: { replicas: typeof status.replicas === 'number' ? status.replicas : 0, selector: Object.entries(matchLabels).map(([k, v]) => `${k}=${String(v)}`).join(',') },
  };
}

function writeScale(store: Store, info: KindInfo, ns: string | undefined, name: string, scale: Json, dryRun: boolean): JsonObject {
  const current = store.get(info, ns, name);
  if (!isObject(scale) || !isObject(scale.spec) || typeof scale.spec.replicas !== 'number') throw badRequest('a Scale needs spec.replicas');
  const sentRv = isObject(scale.metadata) ? scale.metadata.resourceVersion : undefined;
  if (typeof sentRv === 'string' && sentRv !== '' && sentRv !== (current.metadata as JsonObject).resourceVersion) {
    throw conflict(info.plural, info.group, name, 'the object has been modified; please apply your changes to the latest version and try again');
  }
  const next = { ...current, spec: { ...(isObject(current.spec) ? current.spec : {}), replicas: scale.spec.replicas } };
  return toScale(store.update(info, next, { namespace: ns, dryRun }));
}

function listMeta(result: { resourceVersion: string; continue?: string; remainingItemCount?: number }): JsonObject {
  return { resourceVersion: result.resourceVersion, ...(result.continue ? { continue: result.continue, remainingItemCount: result.remainingItemCount ?? 0 } : {}) };
}

async function body(req: IncomingMessage): Promise<Json> {
  return decodeBody(await readBody(req), req.headers['content-type']);
}

export async function handleResource(ctx: HandlerContext, req: IncomingMessage, res: ServerResponse, route: ResourceRoute,
  verb: string, query: URLSearchParams, user: UserInfo): Promise<void> {
  const { store } = ctx;
  const { info, namespace: ns, name, subresource } = route;
  const view = viewFor(info);
  const stored = view.storage;
  const inbound = (b: Json): Json => (isObject(b) ? view.toStorage(b) : b);
  const dryRun = query.get('dryRun') === 'All';
  const rendering = renderingOf(req.headers.accept);
  const render = (stored: JsonObject): JsonObject => {
    const obj = view.fromStorage(stored);
    if (rendering === 'table') return toTable(info, [obj], { resourceVersion: String((obj.metadata as JsonObject).resourceVersion) }, Date.now());
    return rendering === 'partial' ? toPartial(obj) : obj;
  };
  const selectors = { namespace: ns, labelSelector: query.get('labelSelector') ?? undefined, fieldSelector: mapFieldSelector(query.get('fieldSelector') ?? undefined, view) };
  const sub = subresource === 'status' ? 'status' as const : undefined;
  /** Run `write` for real, after a dry run reviewed by the matching admission webhooks. */
  const admitted = async (operation: Operation, write: (dry: boolean) => JsonObject, previous: () => JsonObject | null = () => null): Promise<JsonObject> => {
    if (!dryRun && ctx.admission.wants({ operation, info, subresource, namespace: ns, name })) {
      const candidate = operation === 'DELETE' ? null : view.fromStorage(write(true));
      const oldObject = previous();
      const warnings = await ctx.admission.review({ operation, info, subresource, namespace: ns, name, object: candidate, oldObject: oldObject && view.fromStorage(oldObject), user });
      // As kube-apiserver: each warning a `Warning: 299 - "<text>"` header (kubectl prints "Warning: <text>").
      if (warnings.length > 0) res.setHeader('Warning', warnings.map((text) => `299 - ${JSON.stringify(text.replace(/[^\x20-\x7e]/gu, ' '))}`));
    }
    return write(dryRun);
  };
  const current = (): JsonObject | null => { try { return store.get(stored, ns, name!); } catch { return null; } };
  switch (verb) {
    case 'get': {
      const obj = store.get(stored, ns, name!);
      sendJson(res, 200, subresource === 'scale' ? toScale(obj) : render(obj));
      return;
    }
    case 'list': {
      const rv = query.get('resourceVersion');
      if (query.get('resourceVersionMatch') === 'Exact' && rv && !store.log.isResumable(Number(rv))) throw gone(`too old resource version: ${rv}`);
      const limit = query.get('limit') ? Number(query.get('limit')) : undefined;
      const result = store.list(stored, { ...selectors, limit, continue: query.get('continue') ?? undefined }, true);
      const meta = listMeta(result);
      const items = result.items.map(view.fromStorage);
      if (rendering === 'table') sendJson(res, 200, toTable(info, items, meta, Date.now()));
      else if (rendering === 'partial') sendJson(res, 200, { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: meta, items: items.map(toPartial) });
      else sendJson(res, 200, { kind: `${info.kind}List`, apiVersion: apiVersionOf(info), metadata: meta, items });
      return;
    }
    case 'watch':
      serveWatch(ctx, req, res, stored, { ...selectors, resourceVersion: query.get('resourceVersion') ?? undefined }, {
        timeoutSeconds: Number(query.get('timeoutSeconds') ?? 0), bookmarks: query.get('allowWatchBookmarks') === 'true',
        render: (obj) => (rendering === 'partial' ? toPartial(view.fromStorage(obj)) : view.fromStorage(obj)),
      });
      return;
    case 'create': {
      if (name) throw methodNotAllowed('POST is not allowed on a named object');
      const created = inbound(await body(req));
      sendJson(res, 201, render(await admitted('CREATE', (dry) => store.create(stored, created, { namespace: ns, dryRun: dry }))));
      return;
    }
    case 'update': {
      const obj = await body(req);
      if (subresource === 'scale') { sendJson(res, 200, writeScale(store, info, ns, name!, obj, dryRun)); return; }
      if (!isObject(obj) || !isObject(obj.metadata) || obj.metadata.name !== name) throw badRequest('the name of the object does not match the name on the URL');
      sendJson(res, 200, render(await admitted('UPDATE', (dry) => store.update(stored, inbound(obj), { namespace: ns, subresource: sub, dryRun: dry }), current)));
      return;
    }
    case 'patch': {
      const kind = patchKindOf(req.headers['content-type']);
      const fieldManager = query.get('fieldManager') ?? undefined;
      if (kind === 'apply' && !fieldManager) throw badRequest('PATCH with application/apply-patch+yaml requires the fieldManager query parameter');
      const patchBody = await body(req);
      if (subresource === 'scale') {
        const scale = applyPatch(kind, toScale(store.get(info, ns, name!)), patchBody);
        sendJson(res, 200, writeScale(store, info, ns, name!, scale, dryRun));
        return;
      }
      const before = current();
      // A view of another kind's storage is patched in its own field layout, then stored back.
      const obj = await admitted(before ? 'UPDATE' : 'CREATE', (dry) => (stored === info || !before
        ? store.patch(stored, ns, name!, kind, stored === info ? patchBody : inbound(patchBody), { subresource: sub, dryRun: dry, fieldManager })
        : store.update(stored, inbound(applyPatch(kind, view.fromStorage(before), patchBody)), { namespace: ns, subresource: sub, dryRun: dry })), () => before);
      sendJson(res, before ? 200 : 201, render(obj));
      return;
    }
    case 'delete': {
      const raw = await readBody(req);
      const opts = raw.length > 0 && raw.toString('utf8').trim() !== '' ? decodeBody(raw, req.headers['content-type']) : {};
      const pre = isObject(opts) && isObject(opts.preconditions) ? opts.preconditions : {};
      const propagationPolicy = query.get('propagationPolicy') ?? (isObject(opts) && typeof opts.propagationPolicy === 'string' ? opts.propagationPolicy : undefined);
      const deleted = await admitted('DELETE', (dry) => store.delete(stored, ns, name!,
        { uid: pre.uid as string | undefined, resourceVersion: pre.resourceVersion as string | undefined, dryRun: dry, propagationPolicy }), current);
      sendJson(res, 200, render(deleted));
      return;
    }
    case 'deletecollection': {
      const items = store.list(stored, selectors).items;
      const deleted = items.map((o) => view.fromStorage(store.delete(stored, (o.metadata as JsonObject).namespace as string | undefined, String((o.metadata as JsonObject).name), { dryRun })));
      sendJson(res, 200, { kind: `${info.kind}List`, apiVersion: apiVersionOf(info), metadata: { resourceVersion: store.resourceVersion }, items: deleted });
      return;
    }
    default: throw methodNotAllowed(`verb ${verb} is not supported`);
  }
}
