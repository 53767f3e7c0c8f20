// Which paths of an Ingress the built model serves. The model is the truth: a
// rule path is served when the location the builder made of it is in the
// model and still belongs to this Ingress (a conflict gives it to an older
// one), a canary path when its split is on its main location's route. The
// builder's failures say why a path is not served. spec.defaultBackend is a
// fallback where no rule serves `/`: it counts as served unless the builder
// refused it.

import type { V1Ingress, V1IngressBackend, V1Service } from '@kubernetes/client-node';
import type { ServiceRef } from '../model/backend-ref.ts';
import type { IngressTranslation } from '../model/ingress-translation.ts';
import type { LocationCandidate } from '../model/ingress-rules.ts';
import type { Failure, Location, Model } from '../model/types.ts';
import type { PathReport } from './report-types.ts';

/** The model's locations by host, then `<match> <path>`. */
export type LocationIndex = ReadonlyMap<string, ReadonlyMap<string, Location>>;

export function indexLocations(model: Model): LocationIndex {
  return new Map(model.servers.map((server) => [server.hostname, new Map(server.locations.map((location) => [`${location.match} ${location.path}`, location]))]));
}

/** What the path analysis of one Ingress needs. */
export interface PathContext {
  readonly model: Model;
  readonly locations: LocationIndex;
  readonly translation: IngressTranslation;
  /** This Ingress's failures that are errors (not warnings). */
  readonly errors: readonly Failure[];
  readonly services: readonly V1Service[];
  readonly canary: boolean;
}

function arrayOf<T>(value: readonly T[] | undefined | null): readonly T[] {
  return Array.isArray(value) ? value : [];
}

/** The first error naming `field` or a field under it. */
function errorAt(errors: readonly Failure[], field: string): string | null {
  return errors.find((failure) => failure.field === field || failure.field.startsWith(`${field}.`))?.message ?? null;
}

function externalNameWhy(backend: ServiceRef, services: readonly V1Service[]): string | null {
  const service = services.find((item) => item.metadata?.namespace === backend.namespace && item.metadata?.name === backend.service);
  return service?.spec?.type === 'ExternalName'
    ? `Service ${backend.namespace}/${backend.service} is of type ExternalName, which is not supported yet; requests get 503`
    : null;
}

/** Whether the model serves `candidate` as this Ingress (or, for a canary, as a split of its main route). */
function placed(candidate: LocationCandidate, context: PathContext): boolean {
  const { location } = candidate;
  const found = context.locations.get(candidate.host)?.get(`${location.match} ${location.path}`);
  if (found === undefined || found.route.kind !== 'backend' || location.route.kind !== 'backend') return false;
  const backend = location.route.backend;
  if (context.canary) {
    const key = found.route.key;
    return context.model.routes.some((route) => route.key === key && route.canary.backend === backend);
  }
  const ref = context.translation.ref;
  return found.ingress?.namespace === ref.namespace && found.ingress.name === ref.name && found.route.backend === backend;
}

function rulePath(field: string, host: string, path: string, hostField: string, context: PathContext): PathReport {
  const report = (served: boolean, why: string | null): PathReport => ({ field, host, path, served, why });
  const refusedIngress = context.translation.features === null;
  if (refusedIngress) return report(false, context.errors[0]?.message ?? 'the Ingress is refused');
  const candidate = context.translation.candidates.find((item) => item.field === field);
  if (candidate === undefined) return report(false, errorAt(context.errors, field) ?? errorAt(context.errors, hostField) ?? 'refused by the builder');
  if (!placed(candidate, context)) {
    const fallback = context.canary ? 'no main Ingress serves this host and path' : 'another Ingress serves this host and path';
    return report(false, errorAt(context.errors, field) ?? fallback);
  }
  const external = externalNameWhy(candidate.backend, context.services);
  return external === null ? report(true, null) : report(false, external);
}

function defaultBackendPath(backend: V1IngressBackend, context: PathContext): PathReport {
  const field = 'spec.defaultBackend';
  const report = (served: boolean, why: string | null): PathReport => ({ field, host: '*', path: '/', served, why });
  const refusal = errorAt(context.errors, field);
  const checked = context.translation.defaultBackend;
  if (context.translation.features === null) return report(false, context.errors[0]?.message ?? 'the Ingress is refused');
  if (checked === null || refusal !== null) return report(false, refusal ?? `default backend ${JSON.stringify(backend)} refused`);
  const external = externalNameWhy(checked, context.services);
  return external === null ? report(true, null) : report(false, external);
}

/** Every rule path of `ingress` (and its spec.defaultBackend, except on a canary, which attaches rule paths only). */
export function pathReports(ingress: V1Ingress, context: PathContext): PathReport[] {
  const reports: PathReport[] = [];
  arrayOf(ingress.spec?.rules).forEach((rule, ruleIndex) => {
    const host = typeof rule?.host === 'string' && rule.host !== '' ? rule.host : '*';
    arrayOf(rule?.http?.paths).forEach((item, pathIndex) => {
      const field = `spec.rules[${ruleIndex}].http.paths[${pathIndex}]`;
      const path = typeof item?.path === 'string' ? item.path : '';
      reports.push(rulePath(field, host, path, `spec.rules[${ruleIndex}].host`, context));
    });
  });
  const backend = ingress.spec?.defaultBackend;
  if (backend !== undefined && backend !== null && !context.canary) reports.push(defaultBackendPath(backend, context));
  return reports;
}
