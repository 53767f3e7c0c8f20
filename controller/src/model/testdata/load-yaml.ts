// Test-only: a Snapshot from multi-document YAML (the golden cases' in.yaml).
// The documents are read as `resty-ingress migrate` reads manifests
// (migrate/manifests.ts: timestamps become Dates, as the informer delivers
// them). Unknown kinds and YAML errors throw: a golden input must say
// exactly what it means.

import type {
  V1ConfigMap,
  V1EndpointSlice,
  V1Ingress,
  V1IngressClass,
  V1Secret,
  V1Service,
} from '@kubernetes/client-node';
import { parseManifestObjects } from '../../migrate/manifests.ts';
import type { Snapshot } from '../types.ts';

/** Parses in.yaml into a Snapshot; throws on YAML errors or kinds the model does not read. */
export function loadSnapshotFromYaml(text: string): Snapshot {
  const ingresses: V1Ingress[] = [];
  const ingressClasses: V1IngressClass[] = [];
  const services: V1Service[] = [];
  const endpointSlices: V1EndpointSlice[] = [];
  const secrets: V1Secret[] = [];
  const configMaps: V1ConfigMap[] = [];
  for (const object of parseManifestObjects(text, 'in.yaml')) {
    switch (object.kind) {
      case 'Ingress': ingresses.push(object as V1Ingress); break;
      case 'IngressClass': ingressClasses.push(object as V1IngressClass); break;
      case 'Service': services.push(object as V1Service); break;
      case 'EndpointSlice': endpointSlices.push(object as unknown as V1EndpointSlice); break;
      case 'Secret': secrets.push(object as V1Secret); break;
      case 'ConfigMap': configMaps.push(object as V1ConfigMap); break;
      default: throw new Error(`in.yaml: unsupported kind ${JSON.stringify(object.kind)}`);
    }
  }
  return { ingresses, ingressClasses, services, endpointSlices, secrets, configMaps };
}
