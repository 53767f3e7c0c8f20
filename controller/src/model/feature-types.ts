// The features' configs: what each feature module (controller/src/model/features)
// parses from its annotations and ConfigMap keys, field by field. Part of the model's
// contract (types.ts re-exports every type here): render, diff and admission read them.

import type { AccessControlConfig, BasicAuthConfig, ClientCertsConfig, CorsConfig, CrossNamespaceSettings, ExternalAuthConfig, RateLimitConfig, SafetySettings, SatisfyConfig, SnippetsConfig } from './access-types.ts';
import type { AccessLogSettings, ClientAddressSettings, ClientConnectionsSettings, ConnectionHeaderConfig, GzipSettings, HashSizeSettings, HeaderSettings, Http2Settings, ProxyBuffersConfig, ProxyConfig, ProxyRewritesConfig, RedirectConfig, RewriteConfig, ServerAliasConfig, SslRedirectConfig, TlsSessionSettings, TlsSettings, WorkerSettings } from './edge-types.ts';
import type { StreamProxySettings } from './l4-types.ts';
import type { SslPassthroughConfig } from './ssl-passthrough-types.ts';
import type { AffinityConfig, BackendProtocolConfig, CanaryConfig, CustomErrorsConfig, FastcgiConfig, LoadBalanceConfig, MirrorConfig, NextUpstreamConfig, ProxySslConfig, ServiceUpstreamConfig, UpstreamHashConfig, UpstreamHeadersConfig } from './traffic-types.ts';

/**
 * Every feature's config, by feature name (controller/src/model/features: one module each).
 * The ConfigMap gives the global value of each (GlobalSettings); annotations override the
 * location features per Ingress (Location.policy); canary is parsed per Ingress into Model.routes.
 */
export interface FeatureConfigs {
  readonly proxy: ProxyConfig;
  readonly backendProtocol: BackendProtocolConfig;
  readonly rewrite: RewriteConfig;
  readonly sslRedirect: SslRedirectConfig;
  readonly loadBalance: LoadBalanceConfig;
  readonly upstreamHash: UpstreamHashConfig;
  readonly canary: CanaryConfig;
  readonly affinity: AffinityConfig;
  readonly tls: TlsSettings;
  readonly accessLog: AccessLogSettings;
  readonly safety: SafetySettings;
  readonly accessControl: AccessControlConfig;
  readonly cors: CorsConfig;
  readonly mirror: MirrorConfig;
  readonly customErrors: CustomErrorsConfig;
  readonly fastcgi: FastcgiConfig;
  readonly proxySsl: ProxySslConfig;
  readonly crossNamespace: CrossNamespaceSettings;
  readonly upstreamHeaders: UpstreamHeadersConfig;
  readonly nextUpstream: NextUpstreamConfig;
  readonly serviceUpstream: ServiceUpstreamConfig;
  readonly clientCerts: ClientCertsConfig;
  readonly rateLimit: RateLimitConfig;
  readonly satisfy: SatisfyConfig;
  readonly gzip: GzipSettings;
  readonly http2: Http2Settings;
  readonly workers: WorkerSettings;
  readonly hashSizes: HashSizeSettings;
  readonly tlsSession: TlsSessionSettings;
  readonly externalAuth: ExternalAuthConfig;
  readonly basicAuth: BasicAuthConfig;
  readonly proxyBuffers: ProxyBuffersConfig;
  readonly proxyRewrites: ProxyRewritesConfig;
  readonly clientConnections: ClientConnectionsSettings;
  readonly connectionHeader: ConnectionHeaderConfig;
  readonly clientAddress: ClientAddressSettings;
  readonly headerSettings: HeaderSettings;
  readonly snippets: SnippetsConfig;
  readonly redirect: RedirectConfig;
  readonly serverAlias: ServerAliasConfig;
  readonly sslPassthrough: SslPassthroughConfig;
  readonly streamProxy: StreamProxySettings;
}


/**
 * Global settings from the ConfigMap (--configmap): the global config of every feature, by
 * feature name, each key validated (a bad value keeps the default, with a failure). A location
 * feature's value here is what a location gets when its Ingress does not set it; the renderer
 * prints it once at http level where NGINX allows.
 */
export type GlobalSettings = FeatureConfigs;

