// The objects read from manifests → the Snapshot the builder takes. Only the
// kinds the builder reads for routing are kept (Ingress, IngressClass,
// Service, ConfigMap); every other object of an app's manifests (Deployments,
// Secrets, …) is counted and left alone. Secrets are never read: certificates
// do not decide whether an Ingress is served, and a report must not carry keys.
// A namespaced object without a namespace gets the default one, as
// `kubectl apply -f` (-n) gives it.

import type { V1ConfigMap, V1Ingress, V1IngressClass, V1Service } from '@kubernetes/client-node';
import type { Snapshot } from '../model/types.ts';
import type { FoundObject, ManifestObject } from './manifests.ts';
import type { SkippedObject } from './report-types.ts';

/** The kinds read, with the apiVersion Kubernetes serves them under. */
const READ_KINDS: Readonly<Record<string, { readonly apiVersion: string; readonly namespaced: boolean }>> = Object.freeze({
  Ingress: { apiVersion: 'networking.k8s.io/v1', namespaced: true },
  IngressClass: { apiVersion: 'networking.k8s.io/v1', namespaced: false },
  Service: { apiVersion: 'v1', namespaced: true },
  ConfigMap: { apiVersion: 'v1', namespaced: true },
});

/** What the manifests give the builder, and what was left out. */
export interface ManifestSnapshot {
  readonly snapshot: Snapshot;
  /** Objects of the read kinds that were not used, with why. */
  readonly skipped: readonly SkippedObject[];
  /** How many objects of other kinds the files held. */
  readonly otherObjects: number;
}

function nameOf(object: ManifestObject): string {
  const name = object.metadata?.name;
  return typeof name === 'string' ? name : '';
}

function inNamespace(object: ManifestObject, namespace: string): ManifestObject {
  const current = object.metadata?.namespace;
  if (typeof current === 'string' && current !== '') return object;
  return { ...object, metadata: { ...object.metadata, namespace } };
}

/** Sorts the found objects into a Snapshot (no EndpointSlices, no Secrets). */
export function snapshotFromManifests(found: readonly FoundObject[], defaultNamespace: string): ManifestSnapshot {
  const ingresses: V1Ingress[] = [];
  const ingressClasses: V1IngressClass[] = [];
  const services: V1Service[] = [];
  const configMaps: V1ConfigMap[] = [];
  const skipped: SkippedObject[] = [];
  let otherObjects = 0;
  for (const { file, object } of found) {
    const kind = typeof object.kind === 'string' ? object.kind : '';
    const expected = READ_KINDS[kind];
    if (expected === undefined) {
      otherObjects += 1;
      continue;
    }
    if (object.apiVersion !== expected.apiVersion) {
      skipped.push({
        file, kind, name: nameOf(object),
        why: `apiVersion ${JSON.stringify(object.apiVersion)} is not served by Kubernetes 1.22 and later; write it as ${expected.apiVersion}`,
      });
      continue;
    }
    const placed = expected.namespaced ? inNamespace(object, defaultNamespace) : object;
    if (kind === 'Ingress') ingresses.push(placed as V1Ingress);
    else if (kind === 'IngressClass') ingressClasses.push(placed as V1IngressClass);
    else if (kind === 'Service') services.push(placed as V1Service);
    else configMaps.push(placed as V1ConfigMap);
  }
  return { snapshot: { ingresses, ingressClasses, services, endpointSlices: [], secrets: [], configMaps }, skipped, otherObjects };
}
