// buildModel: the whole cluster state → the NGINX model, as a pure function.
// Phases, each deterministic:
// 1. pick our Ingresses (ingress-class.ts), sort them oldest first (order.ts);
//    per Ingress: names, annotations (a bad one skips the Ingress), rules →
//    locations placed oldest-wins. Each Ingress is wrapped so that one that
//    breaks the builder becomes a failure, not a crash;
// 2. spec.defaultBackend locations; 3. the global default on every server
//    still without `/`; 4. resolve the claimed backends to endpoints;
// 5. spec.tls → certificates (tls-hosts.ts). The ConfigMap (config-map.ts)
//    gives global settings and the annotation defaults used throughout.

import type { V1Ingress } from '@kubernetes/client-node';
import { parseIngressAnnotations } from './annotations/index.ts';
import { checkIngressBackend, type ServiceRef } from './backend-ref.ts';
import { BackendRegistry } from './backends.ts';
import { indexCluster } from './cluster-index.ts';
import {
  placeGlobalDefaults,
  placeIngressDefaultBackends,
  resolveGlobalDefault,
  type AcceptedIngress,
} from './default-backends.ts';
import { ingressRefOf, makeFailure, quoteValue } from './failure.ts';
import { indexIngressClasses, isOurIngress } from './ingress-class.ts';
import { translateRules } from './ingress-rules.ts';
import { checkNamespace, checkObjectName } from './names.ts';
import { sortIngressesOldestFirst } from './order.ts';
import { readControllerConfig } from './config-map.ts';
import { placeBackendLocation } from './placement.ts';
import { readIngressTls, resolveTls, type IngressTls } from './tls-hosts.ts';
import { ServerTable } from './server-table.ts';
import type { AnnotationValues } from './annotations/index.ts';
import type { BuildOptions, BuildResult, Failure, IngressRef, Snapshot } from './types.ts';

interface BuildState {
  readonly table: ServerTable;
  readonly registry: BackendRegistry;
  readonly failures: Failure[];
  /** Accepted Ingresses with a spec.defaultBackend (the only ones phase 2 uses). */
  readonly accepted: AcceptedIngress[];
  /** Accepted Ingresses with spec.tls entries (the only ones resolveTls uses). */
  readonly tls: IngressTls[];
  /** Annotation defaults after the ConfigMap. */
  readonly defaults: AnnotationValues;
}

/** Validates one Ingress, places its rule locations, and records it for the default-backend phase. */
function addIngress(ingress: V1Ingress, rank: number, options: BuildOptions, state: BuildState): void {
  const ref = ingressRefOf(ingress);
  const namespace = checkNamespace(ref.namespace);
  const name = checkObjectName(ref.name);
  if (!namespace.ok || !name.ok) {
    state.failures.push(makeFailure(ref, 'InvalidName', 'metadata',
      `Ingress ${quoteValue(`${ref.namespace}/${ref.name}`)} has an invalid namespace or name; skipped`));
    return;
  }
  const annotations = parseIngressAnnotations(ingress.metadata?.annotations, options.annotationsPrefix, ref, undefined, state.defaults);
  if (!annotations.ok) {
    state.failures.push(...annotations.failures);
    return;
  }
  const values = annotations.values;
  const rules = translateRules(ingress, ref, values);
  state.failures.push(...rules.failures);
  for (const host of rules.hosts) state.table.ensure(host);
  for (const candidate of rules.candidates) {
    const failure = placeBackendLocation(state.table, state.registry, {
      ...candidate, loadBalance: values.loadBalance, rank, serviceField: '.backend.service.name',
    });
    if (failure) state.failures.push(failure);
  }
  // Kept only where a later phase has work: the default-backend phase skips
  // Ingresses without one, resolveTls those without spec.tls entries. At 10k
  // Ingresses keeping every one was ~4 MB that outlived young-generation
  // collections during the build, only to become old-space garbage.
  const defaultBackend = defaultBackendOf(ingress, ref, state);
  if (defaultBackend !== null) state.accepted.push({ ref, rank, values, hosts: rules.hosts, defaultBackend });
  const tls = readIngressTls(ingress, ref, rules.hosts);
  state.failures.push(...tls.failures);
  if (tls.tls.entries.length > 0) state.tls.push(tls.tls);
}

function defaultBackendOf(ingress: V1Ingress, ref: IngressRef, state: BuildState): ServiceRef | null {
  const spec = ingress.spec?.defaultBackend;
  if (spec === undefined || spec === null) return null;
  const checked = checkIngressBackend(spec, ref.namespace);
  if (checked.ok) return checked.value;
  state.failures.push(makeFailure(ref, 'InvalidBackend', 'spec.defaultBackend', `default backend refused: ${checked.reason}`));
  return null;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Builds the NGINX model from a snapshot. Pure: no I/O, no clock; never mutates the snapshot. */
export function buildModel(snapshot: Snapshot, options: BuildOptions): BuildResult {
  const cluster = indexCluster(snapshot);
  const classes = indexIngressClasses(snapshot?.ingressClasses ?? [], options);
  const ours = sortIngressesOldestFirst((snapshot?.ingresses ?? []).filter((ingress) => isOurIngress(ingress, classes, options)));
  const config = readControllerConfig(snapshot?.configMaps ?? [], options.configMap);
  const state: BuildState = {
    table: new ServerTable(), registry: new BackendRegistry(), failures: [...config.failures], accepted: [], tls: [],
    defaults: config.annotationDefaults,
  };

  ours.forEach((ingress, rank) => {
    try {
      addIngress(ingress, rank, options, state);
    } catch (error) {
      // A builder bug on strange data must cost one Ingress, not every route in the cluster.
      state.failures.push(makeFailure(ingressRefOf(ingress), 'InternalError', 'metadata',
        `the builder could not process this Ingress: ${quoteValue(describeError(error))}`));
    }
  });

  state.failures.push(...placeIngressDefaultBackends(state.accepted, state.table, state.registry));
  const global = resolveGlobalDefault(options, cluster);
  state.failures.push(...global.failures);
  state.failures.push(...placeGlobalDefaults(state.table, state.registry, global, state.defaults));

  const resolved = state.registry.resolve(cluster);
  state.failures.push(...resolved.failures);
  const tls = resolveTls(state.tls, snapshot?.secrets ?? [], options);
  state.failures.push(...tls.failures);
  return {
    model: { servers: state.table.toServers(), backends: resolved.backends, tls: tls.state, settings: config.settings },
    failures: state.failures,
  };
}
