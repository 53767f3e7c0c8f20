// TCP/UDP services (Model.streams) in metrics: how many listeners each
// protocol has, and which ConfigMap entries were refused and why
// (model/stream-services.ts: failures carrying `configMap`). Reset on every
// build, so a refused entry's series lives exactly as long as its failure.
// The per-listener connection and byte counters are stream-counters.ts.

import { Gauge, type Registry } from 'prom-client';
import type { BuildResult } from '../model/types.ts';

export interface StreamMetrics {
  /** Every build's model and standing failures. */
  update(result: BuildResult): void;
}

export function createStreamMetrics(registry: Registry): StreamMetrics {
  const registers = [registry];
  const services = new Gauge({
    name: 'resty_ingress_stream_services',
    help: 'TCP/UDP services NGINX listens for (--tcp-services-configmap, --udp-services-configmap), by protocol',
    labelNames: ['protocol'], registers,
  });
  const refused = new Gauge({
    name: 'resty_ingress_stream_entries_refused',
    help: 'Entries of a TCP/UDP services ConfigMap that are not served, by ConfigMap and reason (warnings excluded)',
    labelNames: ['configmap', 'reason'], registers,
  });
  services.set({ protocol: 'TCP' }, 0);
  services.set({ protocol: 'UDP' }, 0);
  return {
    update({ model, failures }): void {
      const streams = model.streams ?? [];
      services.set({ protocol: 'TCP' }, streams.filter((s) => s.protocol === 'TCP').length);
      services.set({ protocol: 'UDP' }, streams.filter((s) => s.protocol === 'UDP').length);
      refused.reset();
      for (const failure of failures) {
        if (failure.configMap === undefined || failure.warning === true) continue;
        refused.inc({ configmap: failure.configMap, reason: failure.reason });
      }
    },
  };
}
