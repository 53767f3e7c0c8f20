// Model.streams: the TCP and UDP services of --tcp-services-configmap and
// --udp-services-configmap. Each entry is checked (stream-entry.ts), kept off
// the controller's own ports, resolved against its Service (a port of the
// entry's protocol, by number or name) and given the ready endpoints of the
// EndpointSlices. A bad entry costs that entry alone: a failure (log line +
// Warning Event on its ConfigMap) and the others are served.
//
// Unlike ingress-nginx, a Service port with no ready endpoint keeps its
// listener (connections are closed at once) instead of vanishing: the port
// stays ours through a scale to zero and a rollout.

import type { V1ConfigMap, V1Service, V1ServicePort } from '@kubernetes/client-node';
import type { ServiceIndex, SliceIndex } from './cluster-index.ts';
import { collectEndpoints } from './endpoints.ts';
import { makeFailure, makeWarning, quoteValue } from './failure.ts';
import type { ReservedPort, StreamProtocol, StreamService } from './l4-types.ts';
import { parseStreamEntry, type StreamEntry } from './stream-entry.ts';
import type { Failure, Model } from './types.ts';

/** Where the stream services come from: the flags' ConfigMaps and the ports that are not theirs to take. */
export interface StreamSources {
  /** --tcp-services-configmap as `namespace/name`, or null/absent. */
  readonly tcpConfigMap?: string | null;
  /** --udp-services-configmap as `namespace/name`, or null/absent. */
  readonly udpConfigMap?: string | null;
  /** The controller's own ports (HTTP, HTTPS, status, health/metrics, webhook). */
  readonly reservedPorts?: readonly ReservedPort[];
}

/** The stream services and what was refused on the way. */
export interface StreamBuild {
  /** Sorted by protocol (TCP first) then port. */
  readonly services: readonly StreamService[];
  readonly failures: readonly Failure[];
}

const FLAG: Readonly<Record<StreamProtocol, string>> = { TCP: '--tcp-services-configmap', UDP: '--udp-services-configmap' };

function findConfigMap(configMaps: readonly V1ConfigMap[], key: string): V1ConfigMap | undefined {
  return configMaps.find((item) => `${item?.metadata?.namespace}/${item?.metadata?.name}` === key);
}

/** The Service port of the entry's protocol it names, or why there is none. */
function servicePortOf(service: V1Service | undefined, entry: StreamEntry, protocol: StreamProtocol): { port: V1ServicePort } | { reason: string; message: string } {
  const serviceKey = `${entry.namespace}/${entry.service}`;
  if (service === undefined) return { reason: 'ServiceNotFound', message: `Service ${serviceKey} not found` };
  if (service.spec?.type === 'ExternalName') {
    return { reason: 'UnsupportedServiceType', message: `Service ${serviceKey} is of type ExternalName, which stream services do not support` };
  }
  const ports = Array.isArray(service.spec?.ports) ? service.spec.ports : [];
  const port = ports.find((candidate) => (typeof entry.servicePort === 'number' ? candidate?.port === entry.servicePort : candidate?.name === entry.servicePort)
    && (candidate?.protocol ?? 'TCP') === protocol);
  if (port === undefined) {
    return { reason: 'ServicePortNotFound', message: `Service ${serviceKey} has no ${protocol} port ${quoteValue(entry.servicePort)}` };
  }
  return { port };
}

function readConfigMap(
  key: string,
  protocol: StreamProtocol,
  configMaps: readonly V1ConfigMap[],
  reserved: ReadonlyMap<number, string>,
  cluster: { readonly services: ServiceIndex; readonly slices: SliceIndex },
): StreamBuild {
  const configMap = findConfigMap(configMaps, key);
  if (configMap === undefined) {
    return { services: [], failures: [makeFailure(null, 'ConfigMapNotFound', FLAG[protocol], `ConfigMap ${quoteValue(key)} not found; no ${protocol} service is served`)] };
  }
  const services: StreamService[] = [];
  const failures: Failure[] = [];
  const data: Readonly<Record<string, unknown>> = configMap.data ?? {};
  for (const name of Object.keys(data).sort()) {
    const field = `ConfigMap ${key}: data[${name}]`;
    const refusal = (reason: string, message: string): Failure => ({ ...makeFailure(null, reason, field, `${protocol} service ${quoteValue(name)} is not served: ${message}`), configMap: key });
    const entry = parseStreamEntry(name, data[name], protocol);
    if (!entry.ok) {
      failures.push(refusal('InvalidStreamService', `${entry.reason} (value ${quoteValue(data[name])})`));
      continue;
    }
    const flag = reserved.get(entry.value.port);
    if (flag !== undefined) {
      failures.push(refusal('ReservedStreamPort', `port ${entry.value.port} is the controller's own ${flag} port`));
      continue;
    }
    if (entry.value.proxyIgnored) {
      failures.push({ ...makeWarning(null, 'StreamProxyProtocolIgnored', field, `UDP service ${quoteValue(name)}: PROXY protocol exists for TCP only; the PROXY fields are ignored`), configMap: key });
    }
    const found = servicePortOf(cluster.services.service(entry.value.namespace, entry.value.service), entry.value, protocol);
    if ('reason' in found) {
      failures.push(refusal(found.reason, found.message));
      continue;
    }
    const { port, namespace, service, servicePort, proxyProtocol } = entry.value;
    const endpoints = collectEndpoints(found.port, cluster.slices.slicesFor(namespace, service));
    services.push({ port, protocol, namespace, service, servicePort, proxyProtocol, endpoints });
  }
  services.sort((a, b) => a.port - b.port);
  return { services, failures };
}

/** The stream services the two ConfigMaps name. Pure; never throws on bad data. */
export function buildStreamServices(
  sources: StreamSources,
  configMaps: readonly V1ConfigMap[],
  cluster: { readonly services: ServiceIndex; readonly slices: SliceIndex },
): StreamBuild {
  const reserved = new Map((sources.reservedPorts ?? []).map((entry) => [entry.port, entry.flag]));
  const services: StreamService[] = [];
  const failures: Failure[] = [];
  for (const [protocol, key] of [['TCP', sources.tcpConfigMap], ['UDP', sources.udpConfigMap]] as const) {
    if (key === null || key === undefined) continue;
    const built = readConfigMap(key, protocol, configMaps, reserved, cluster);
    services.push(...built.services);
    failures.push(...built.failures);
  }
  return { services, failures };
}

/** `<protocol>/<port>`: how stream listeners are keyed across builds and probes. */
export function streamKey(service: Pick<StreamService, 'protocol' | 'port'>): string {
  return `${service.protocol}/${service.port}`;
}

const BIND_HINTS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'another process listens on it',
  EACCES: 'a port below 1024 needs NET_BIND_SERVICE (the chart: controller.allowPrivilegedPorts)',
};

/**
 * The build without the stream services NGINX could not listen on (`unavailable`: streamKey →
 * the bind error code), each a failure on its ConfigMap (`configMaps`: protocol → `namespace/name`).
 * Pure: the probing is the caller's (nginx/stream-port-probe.ts).
 */
export function withoutUnavailableStreams(
  result: { readonly model: Model; readonly failures: readonly Failure[] },
  unavailable: ReadonlyMap<string, string>,
  configMaps: Readonly<Partial<Record<StreamProtocol, string | null>>>,
): { readonly model: Model; readonly failures: readonly Failure[] } {
  const streams = result.model.streams ?? [];
  if (unavailable.size === 0 || !streams.some((service) => unavailable.has(streamKey(service)))) return result;
  const failures: Failure[] = [...result.failures];
  const kept = streams.filter((service) => {
    const code = unavailable.get(streamKey(service));
    if (code === undefined) return true;
    const configMap = configMaps[service.protocol] ?? '';
    failures.push({
      ...makeFailure(null, 'StreamPortUnavailable', `ConfigMap ${configMap}: data[${service.port}]`,
        `${service.protocol} service "${service.port}" is not served: NGINX cannot listen on port ${service.port} (${code}: ${BIND_HINTS[code] ?? 'bind failed'})`),
      configMap,
    });
    return false;
  });
  const { streams: _streams, ...rest } = result.model;
  return { model: kept.length > 0 ? { ...rest, streams: kept } : rest, failures };
}
