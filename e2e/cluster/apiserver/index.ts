// e2e/cluster/apiserver — a local Kubernetes API server for tests and the
// playground: real kubectl, helm v4 and @kubernetes/client-node work
// against it (HTTPS with a self-signed cert, bearer tokens, optional RBAC).
//
// Owns: the kind table (kinds.ts), the object store with one global
// resourceVersion and the watch window (store.ts, watch.ts), patches,
// validation, discovery/OpenAPI, RBAC, and the HTTP layer. Imports nothing
// from controller/; the simulator imports this folder, never the reverse.
//
// In-process use (same semantics as HTTP; errors are ApiError with .code):
//   const api = await startApiServer({ rbac: true });
//   api.store.create('deployments.apps', obj); api.store.get('pods', ns, name);
//   api.store.list('pods', { namespace, labelSelector, fieldSelector, limit, continue });
//   api.store.update('ingresses.networking.k8s.io', obj, { subresource: 'status' });
//   api.store.patch('services', ns, name, 'merge' | 'json' | 'strategic' | 'apply', body);
//   api.store.delete('pods', ns, name);
//   const stop = api.store.watch('pods', { namespace, resourceVersion }, { onEvent, onClose });
// Faults: api.dropWatches(), api.expireResourceVersions(), await api.restart(),
// await api.down() … await api.up() (unreachable meanwhile).
export { startApiServer, type ApiServer, type ApiServerOptions } from './server.ts';
export { Store, type KindRef, type ListOptions, type ListResult, type WatchOptions } from './store.ts';
export { ApiError, type StatusObject } from './errors.ts';
export { KINDS, findResource, apiVersionOf, type KindInfo } from './kinds.ts';
export type { WatchEvent, WatchSink } from './watch.ts';
export type { UserInfo } from './rbac.ts';
export type { ServiceResolver } from './admission.ts';
export type { Json, JsonObject } from './patch.ts';
