// Admission metrics as the webhook feeds them, read back from the registry.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { IngressRef } from '../model/types.ts';
import { createAdmissionMetrics, OVERFLOW_LABEL, type AdmissionOutcome } from './admission-metrics.ts';

type Review = [AdmissionOutcome, number, IngressRef | null];
const web: IngressRef = { namespace: 'shop', name: 'web' };
const api: IngressRef = { namespace: 'shop', name: 'api' };

/** Samples of the given metrics as `name{labels} value`, sorted. */
async function samples(registry: Registry, names: readonly string[]): Promise<string[]> {
  const text = await registry.metrics();
  return text.split('\n').filter((line) => names.some((name) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))).sort();
}

const CHECKS = ['nginx_ingress_controller_check_success', 'nginx_ingress_controller_check_errors'];

void describe('admission metrics', () => {
  const rows: { name: string; reviews: Review[]; max?: number; checks: string[]; requests: Record<AdmissionOutcome, number> }[] = [
    { name: 'allowed and denied checks per Ingress', reviews: [['allowed', 3, web], ['allowed', 2, web], ['denied', 4, api]],
      checks: ['nginx_ingress_controller_check_errors{namespace="shop",ingress="api"} 1', 'nginx_ingress_controller_check_success{namespace="shop",ingress="web"} 2'],
      requests: { allowed: 2, denied: 1, error: 0 } },
    { name: 'unchecked requests (other class, DELETE) and bad bodies count only as requests', reviews: [['allowed', 1, null], ['error', 1, null]],
      checks: [], requests: { allowed: 1, denied: 0, error: 1 } },
    { name: 'past the cap, new Ingresses fold into one series; known ones keep theirs', max: 1,
      reviews: [['denied', 1, web], ['denied', 1, api], ['denied', 1, { namespace: 'x', name: 'y' }], ['denied', 1, web]],
      checks: [`nginx_ingress_controller_check_errors{namespace="${OVERFLOW_LABEL}",ingress="${OVERFLOW_LABEL}"} 2`, 'nginx_ingress_controller_check_errors{namespace="shop",ingress="web"} 2'],
      requests: { allowed: 0, denied: 4, error: 0 } },
  ];
  for (const row of rows) {
    void it(row.name, async () => {
      const registry = new Registry();
      const metrics = createAdmissionMetrics({ registry, maxIngresses: row.max });
      for (const review of row.reviews) metrics.reviewed(...review);
      assert.deepEqual(await samples(registry, CHECKS), row.checks);
      const requests = await samples(registry, ['resty_ingress_admission_requests_total']);
      assert.deepEqual(requests, Object.entries(row.requests).map(([result, n]) => `resty_ingress_admission_requests_total{result="${result}"} ${n}`).sort());
    });
  }

  void it('admission_roundtrip_duration is the last review, in seconds', async () => {
    const registry = new Registry();
    const metrics = createAdmissionMetrics({ registry });
    metrics.reviewed('allowed', 1500, web);
    metrics.reviewed('denied', 250, api);
    assert.deepEqual(await samples(registry, ['nginx_ingress_controller_admission_roundtrip_duration']), ['nginx_ingress_controller_admission_roundtrip_duration 0.25']);
  });
});
