// Model.sslPassthrough: which hosts' TLS connections the stream listener on the
// HTTPS port sends undecrypted to a backend (--enable-ssl-passthrough and the
// ssl-passthrough annotation), as ingress-nginx v1.15.1 decides it
// (controller.go getConfiguration / createServers):
// - the target is the backend of the host's `/` location (a `/` rule, else the
//   Ingress's spec.defaultBackend); a host whose `/` is the global default
//   backend is not passthrough (warning). Other paths and every other
//   annotation only shape the host's plain-HTTP server, which stays;
// - unlike ingress-nginx (any Ingress of the host turns it on), the oldest
//   Ingress naming a host decides, as for every host-level setting here; a
//   younger Ingress of the host that disagrees gets a Warning Event;
// - without the flag ingress-nginx ignores the annotation silently: here the
//   Ingress is served terminated, with a Warning Event saying why;
// - SNI is matched exactly (ingress-nginx's TCPProxy.Get), so a wildcard host
//   or a rule without a host cannot be passthrough (warning).
// The endpoints are a copy of the backend's (withPassthroughEndpoints): the
// differ treats them as dynamic and the sync feeds them to njs with the TCP/UDP
// services' (`SNI/<hostname>`), so an endpoint change reloads nothing.

import { describeRef, makeWarning } from './failure.ts';
import { CATCH_ALL_HOST } from './names.ts';
import type { PassthroughHost } from './ssl-passthrough-types.ts';
import type { Backend, BackendProtocol, Failure, GlobalSettings, IngressRef, Server } from './types.ts';

const FIELD = 'metadata.annotations[ssl-passthrough]';

/** A passthrough host before its endpoints are known (the routing part of a build). */
export type PassthroughTarget = Omit<PassthroughHost, 'endpoints'>;

interface HostClaim {
  readonly ref: IngressRef;
  readonly enabled: boolean;
}

/**
 * Collects, Ingress by Ingress in build order (oldest first), which Ingress decides each host.
 * Only hosts some Ingress asks to be passthrough matter, but a host's first Ingress is
 * recorded whatever it asks: it is the one that decides.
 */
export class PassthroughClaims {
  readonly #enabled: boolean;
  readonly #hosts = new Map<string, HostClaim>();
  readonly #failures: Failure[] = [];
  #any = false;

  /** `enabled`: --enable-ssl-passthrough. */
  constructor(enabled: boolean) {
    this.#enabled = enabled;
  }

  /** Records one accepted, non-canary Ingress with its rule hosts and its annotation (false when absent). */
  add(ref: IngressRef, hosts: readonly string[], asked: boolean): void {
    if (!this.#enabled) {
      if (asked) {
        this.#failures.push(makeWarning(ref, 'SslPassthroughDisabled', FIELD,
          'ssl-passthrough is ignored: the controller runs without --enable-ssl-passthrough; the Ingress is served with TLS terminated'));
      }
      return;
    }
    if (asked) this.#any = true;
    for (const host of hosts) {
      const first = this.#hosts.get(host);
      if (first === undefined) {
        const exact = host !== CATCH_ALL_HOST && !host.startsWith('*.');
        if (asked && !exact) {
          this.#failures.push(makeWarning(ref, 'SslPassthroughNeedsHost', FIELD, host === CATCH_ALL_HOST
            ? 'ssl-passthrough needs a host: the rule without a host is served with TLS terminated'
            : `ssl-passthrough matches the SNI name exactly: wildcard host "${host}" is served with TLS terminated`));
        }
        this.#hosts.set(host, { ref, enabled: asked && exact });
      } else if (first.enabled !== asked && (asked || first.enabled)) {
        this.#failures.push(makeWarning(ref, 'SslPassthroughConflict', FIELD, first.enabled
          ? `host "${host}" is ssl-passthrough by the older Ingress ${describeRef(first.ref)}: this Ingress's paths get no TLS connections`
          : `host "${host}" is served with TLS terminated by the older Ingress ${describeRef(first.ref)}: ssl-passthrough is ignored for it`));
      }
    }
  }

  /** The failures seen so far (flag off, hosts that cannot be passthrough, conflicts). */
  get failures(): readonly Failure[] {
    return this.#failures;
  }

  /** The hosts decided passthrough, sorted, with the Ingress that decided. */
  decided(): { readonly host: string; readonly ref: IngressRef }[] {
    if (!this.#any) return [];
    return [...this.#hosts].filter(([, claim]) => claim.enabled).map(([host, claim]) => ({ host, ref: claim.ref }))
      .sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
  }
}

/** The location ingress-nginx's rootLocation check finds: path `/`, not Exact. */
function rootLocation(server: Server | undefined): Server['locations'][number] | undefined {
  return server?.locations.find((location) => location.path === '/' && location.match !== 'exact');
}

/**
 * Each decided host's target: the backend of its `/` location, from the built servers and the
 * backends by name. Returns the targets (sorted by hostname) and the warnings.
 */
export function resolvePassthroughTargets(
  claims: PassthroughClaims,
  servers: readonly Server[],
  backends: ReadonlyMap<string, Pick<Backend, 'namespace' | 'service' | 'port'>>,
): { readonly targets: readonly PassthroughTarget[]; readonly failures: readonly Failure[] } {
  const decided = claims.decided();
  if (decided.length === 0) return { targets: [], failures: claims.failures };
  const byHost = new Map(servers.map((server) => [server.hostname, server]));
  const targets: PassthroughTarget[] = [];
  const failures: Failure[] = [...claims.failures];
  for (const { host, ref } of decided) {
    const server = byHost.get(host);
    const root = rootLocation(server);
    const route = root?.route;
    const backend = route?.kind === 'backend' && root?.ingress !== null ? backends.get(route.backend) : undefined;
    if (route?.kind !== 'backend' || backend === undefined) {
      failures.push(makeWarning(ref, 'SslPassthroughNoBackend', FIELD,
        `host "${host}" has no "/" path or spec.defaultBackend: ssl-passthrough is ignored and the host is served with TLS terminated`));
      continue;
    }
    const others = (server?.locations ?? []).filter((location) => location !== root && location.ingress !== null).map((location) => location.path);
    if (others.length > 0) {
      failures.push(makeWarning(ref, 'SslPassthroughPathsIgnored', FIELD,
        `host "${host}" is ssl-passthrough: its TLS connections all go to ${backend.namespace}/${backend.service}:${backend.port}; paths ${others.join(', ')} are served on plain HTTP only`));
    }
    targets.push({ hostname: host, backend: route.backend, namespace: backend.namespace, service: backend.service, servicePort: backend.port, ingress: ref });
  }
  return { targets, failures };
}

/** The targets with their backends' ready endpoints (a backend missing from `backends` has none). */
export function withPassthroughEndpoints(targets: readonly PassthroughTarget[], backends: readonly Backend[]): PassthroughHost[] {
  if (targets.length === 0) return [];
  const byName = new Map(backends.map((backend) => [backend.name, backend]));
  return targets.map((target) => ({ ...target, endpoints: byName.get(target.backend)?.endpoints ?? [] }));
}

/**
 * With --enable-ssl-passthrough, HTTPS requests reach the HTTP servers on a unix socket whose PROXY
 * header names the client. NGINX's realip takes one source per request, so a forwarded-for header
 * (use-forwarded-headers, enable-real-ip) cannot be read after it: those keys are dropped (a
 * Warning on the ConfigMap) rather than leave HTTPS requests with the socket as their address.
 * use-proxy-protocol chains (the stream router reads it and sends the client on).
 */
export function passthroughClientAddress(settings: GlobalSettings, enabled: boolean, configMap: string | null | undefined): { readonly settings: GlobalSettings; readonly failures: readonly Failure[] } {
  const address = settings.clientAddress;
  if (!enabled || address.useProxyProtocol || (!address.useForwardedHeaders && !address.enableRealIp)) return { settings, failures: [] };
  const keys = [address.useForwardedHeaders ? 'use-forwarded-headers' : null, address.enableRealIp ? 'enable-real-ip' : null].filter((key) => key !== null);
  const failure = {
    ...makeWarning(null, 'SslPassthroughRealIp', `ConfigMap ${configMap ?? ''}: data[${keys.join(', ')}]`,
      `${keys.join(' and ')} cannot be combined with --enable-ssl-passthrough (the HTTPS requests' address comes from the PROXY header of the passthrough router): ignored, client addresses are the connections' own`),
    ...(configMap ? { configMap } : {}),
  };
  return { settings: Object.freeze({ ...settings, clientAddress: Object.freeze({ ...address, useForwardedHeaders: false, enableRealIp: false }) }), failures: [failure] };
}

const OVER_TLS: Readonly<Partial<Record<BackendProtocol, BackendProtocol>>> = { HTTP: 'HTTPS', AUTO_HTTP: 'HTTPS', GRPC: 'GRPCS' };

/**
 * A passthrough backend's port speaks TLS, so plain-HTTP requests proxied to it must too: as
 * ingress-nginx (template.go buildProxyPass: `https://`, or `grpcs://` for GRPCS, for every
 * location whose upstream is a passthrough one), each location routing to a passthrough backend
 * speaks HTTPS (GRPC: GRPCS) unless its backend-protocol already says TLS or FCGI.
 */
export function withPassthroughBackendProtocol(servers: readonly Server[], targets: readonly PassthroughTarget[], settings: GlobalSettings): readonly Server[] {
  if (targets.length === 0) return servers;
  const backends = new Set(targets.map((target) => target.backend));
  const fallback = settings.backendProtocol.protocol;
  return servers.map((server) => {
    let changed = false;
    const locations = server.locations.map((location) => {
      if (location.route.kind !== 'backend' || !backends.has(location.route.backend)) return location;
      const upgraded = OVER_TLS[location.policy.backendProtocol?.protocol ?? fallback];
      if (upgraded === undefined) return location;
      changed = true;
      return { ...location, policy: Object.freeze({ ...location.policy, backendProtocol: Object.freeze({ protocol: upgraded }) }) };
    });
    return changed ? { ...server, locations } : server;
  });
}
