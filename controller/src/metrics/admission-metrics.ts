// The validating webhook's metrics under ingress-nginx's names:
// `check_success` / `check_errors` count Ingresses the webhook checked
// (allowed / denied) by namespace and ingress, and
// `admission_roundtrip_duration` is the last review's whole duration in
// seconds (a gauge there too). Requests that checked no Ingress (another
// class, DELETE, a malformed body) count only in
// resty_ingress_admission_requests_total, by result. The webhook is fed by
// whoever may create Ingresses, so denied names are capped: past
// MAX_CHECKED_INGRESSES label sets, new ones count under OVERFLOW_LABEL.

import { Counter, Gauge, type Registry } from 'prom-client';
import type { IngressRef } from '../model/types.ts';

/** As the webhook reports it (admission/webhook-server.ts ReviewOutcome). */
export type AdmissionOutcome = 'allowed' | 'denied' | 'error';

/** Distinct namespace/ingress label sets kept before new ones are folded together. */
export const MAX_CHECKED_INGRESSES = 5000;
/** namespace and ingress label of the folded series. */
export const OVERFLOW_LABEL = '_other';

export interface AdmissionMetrics {
  /** After every webhook request: its outcome, duration in ms, and the Ingress it checked (else null). */
  reviewed(outcome: AdmissionOutcome, ms: number, ingress: IngressRef | null): void;
}

export interface AdmissionMetricsOptions {
  readonly registry: Registry;
  /** Default MAX_CHECKED_INGRESSES (tests lower it). */
  readonly maxIngresses?: number;
}

export function createAdmissionMetrics(options: AdmissionMetricsOptions): AdmissionMetrics {
  const registers = [options.registry];
  const labelNames = ['namespace', 'ingress'] as const;
  const checkSuccess = new Counter({ name: 'nginx_ingress_controller_check_success', help: 'Cumulative number of Ingress controller syntax check operations', labelNames, registers });
  const checkErrors = new Counter({ name: 'nginx_ingress_controller_check_errors', help: 'Cumulative number of Ingress controller errors during syntax check operations', labelNames, registers });
  const roundtrip = new Gauge({ name: 'nginx_ingress_controller_admission_roundtrip_duration', help: 'The complete duration of the admission controller at the time to process a new event (float seconds)', registers });
  const requests = new Counter({ name: 'resty_ingress_admission_requests_total', help: 'Validating webhook requests by result (error = refused before any check: bad body, path or method)', labelNames: ['result'], registers });
  for (const result of ['allowed', 'denied', 'error']) requests.inc({ result }, 0);
  const max = options.maxIngresses ?? MAX_CHECKED_INGRESSES;
  const seen = new Set<string>();

  const labelsOf = (ingress: IngressRef): { namespace: string; ingress: string } => {
    const key = `${ingress.namespace}/${ingress.name}`;
    if (!seen.has(key)) {
      if (seen.size >= max) return { namespace: OVERFLOW_LABEL, ingress: OVERFLOW_LABEL };
      seen.add(key);
    }
    return { namespace: ingress.namespace, ingress: ingress.name };
  };

  return {
    reviewed(outcome: AdmissionOutcome, ms: number, ingress: IngressRef | null): void {
      requests.inc({ result: outcome });
      roundtrip.set(ms / 1000);
      if (ingress === null || outcome === 'error') return;
      (outcome === 'allowed' ? checkSuccess : checkErrors).inc(labelsOf(ingress));
    },
  };
}
