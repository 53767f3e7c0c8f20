// The Helm values `tcp:` and `udp:` (ingress-nginx's chart and ours: a port →
// "<namespace>/<service>:<port>[:PROXY][:PROXY]" map the chart turns into the
// TCP/UDP services ConfigMaps and Service ports), checked entry by entry with
// the controller's own grammar, so that `migrate --helm-values` says before the
// install which entries the controller would skip. Whether the Service exists
// and the port is free is for the running controller to say (it needs the
// cluster and the listen ports).

import { parseStreamEntry } from '../model/stream-entry.ts';
import type { StreamProtocol } from '../model/l4-types.ts';

const VALUES: readonly { readonly key: 'tcp' | 'udp'; readonly protocol: StreamProtocol }[] = [
  { key: 'tcp', protocol: 'TCP' },
  { key: 'udp', protocol: 'UDP' },
];

function mapOf(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** One note per `tcp`/`udp` value: what would be served, and each entry the controller would skip and why. */
export function streamValueNotes(values: unknown): string[] {
  const notes: string[] = [];
  for (const { key, protocol } of VALUES) {
    const raw = mapOf(values)?.[key];
    if (raw === undefined || raw === null) continue;
    const entries = mapOf(raw);
    if (entries === null) {
      notes.push(`${key} is left out: it must be a map of port to "<namespace>/<service>:<port>[:PROXY][:PROXY]"`);
      continue;
    }
    const names = Object.keys(entries).sort((a, b) => Number(a) - Number(b) || (a < b ? -1 : a > b ? 1 : 0));
    if (names.length === 0) continue;
    let good = 0;
    for (const port of names) {
      const value = entries[port];
      // The chart quotes every value; a number or boolean would reach the ConfigMap as its text.
      const text = typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
      const entry = parseStreamEntry(port, text, protocol);
      if (!entry.ok) notes.push(`${key}.${port} would be skipped by the controller (Warning Event on the ConfigMap): ${entry.reason}`);
      else {
        good += 1;
        if (entry.value.proxyIgnored) notes.push(`${key}.${port}: PROXY means nothing on UDP and is ignored`);
      }
    }
    notes.push(`${key}: ${good} of ${names.length} ${protocol} services served (controller flag --${key}-services-configmap; see docs/tcp-udp-services.md)`);
  }
  return notes;
}
