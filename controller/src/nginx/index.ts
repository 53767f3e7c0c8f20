// nginx: the data plane as a process. Finds the runtime (dataplane.ts), runs
// the NGINX master as the controller's child (nginx-manager.ts: `nginx -t`,
// start, SIGHUP reload confirmed by /config-version, restart after a crash
// with the last good configuration, graceful stop) and talks to the Lua
// configuration server (lua-client.ts).
// May import: model/types.ts only. Receives its logger and paths as values.

export { findDataplane, dataplaneAt, systemDataplane, repoRoot } from './dataplane.ts';
export type { Dataplane, FindDataplaneOptions } from './dataplane.ts';
export { createNginx } from './nginx-manager.ts';
export type { NginxManager, NginxManagerOptions, NginxStats, NginxTimeouts } from './nginx-manager.ts';
export type { RestartBackoff } from './restart-policy.ts';
export {
  NginxError,
  NginxConfigError,
  NginxReloadError,
  NginxStartError,
  NginxNotRunningError,
  nginxProblems,
  problemLine,
  problemText,
} from './nginx-errors.ts';
export type { NginxErrorCode } from './nginx-errors.ts';
export { fetchConfigVersion, waitForConfigVersion } from './config-version.ts';
export { postBackends, patchBackends, applyBackends, applyPatch, getBackends, getStatus, waitForWorkers, LuaClientError } from './lua-client.ts';
export type { LuaClientErrorCode, LuaClientOptions, LuaStatus, WaitForWorkersOptions } from './lua-client.ts';
