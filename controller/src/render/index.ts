// render: Model → nginx.conf (nunjucks templates in rootfs/etc/nginx/template).
// Owns the templates' view of the model, the value filters that keep user
// strings from breaking out of nginx.conf, and the config version.
// May import: model/types.ts only. Receives the data-plane paths as values.

export { createConfigRenderer, renderConfig, MAIN_TEMPLATE } from './render-config.ts';
export type { ConfigRenderer, RenderedConfig } from './render-config.ts';
export { resolveRenderOptions, defaultCertificatePaths, DEFAULT_WORKER_SHUTDOWN_TIMEOUT_SECONDS, ERROR_LOG_LEVELS } from './render-options.ts';
export type { RenderOptions, DataplaneValues, ErrorLogLevel, ResolvedRenderOptions } from './render-options.ts';
export { RenderError } from './nginx-values.ts';
export { ownersOfLine } from './conf-owners.ts';
export type { RenderErrorCode } from './nginx-values.ts';
