// Composes the stream port probe (nginx/stream-port-probe.ts) with the model
// (model/stream-services.ts withoutUnavailableStreams) for the sync's build
// step: a TCP/UDP service NGINX could not listen on is left out with a
// failure on its ConfigMap before it reaches a reload, so one bad port never
// blocks the reloads of everyone else's changes.
import type { BuildResult, Model, StreamProtocol } from './model/types.ts';
import { streamKey, withoutUnavailableStreams } from './model/stream-services.ts';
import { probeStreamPorts, type StreamPort } from './nginx/stream-port-probe.ts';

/** How long a failed probe is trusted: the port may be freed later. */
const FAILED_TTL_MS = 10_000;

export interface StreamPortCheck {
  /** `result` without the stream services whose new ports cannot be bound; `running` is what NGINX runs. */
  check(result: BuildResult, running: Model | null): BuildResult;
}

export function createStreamPortCheck(
  address: string,
  configMaps: Readonly<Partial<Record<StreamProtocol, string | null>>>,
  probe: (address: string, ports: readonly StreamPort[]) => Map<string, string> = probeStreamPorts,
  now: () => number = Date.now,
): StreamPortCheck {
  let last: { key: string; at: number; unavailable: Map<string, string> } | null = null;
  return {
    check(result, running): BuildResult {
      const streams = result.model.streams ?? [];
      if (streams.length === 0) return result;
      // NGINX holds the ports it runs: probing them would only find them in use.
      const held = new Set((running?.streams ?? []).map(streamKey));
      const fresh = streams.filter((service) => !held.has(streamKey(service))).map(({ protocol, port }) => ({ protocol, port }));
      if (fresh.length === 0) return result;
      const key = fresh.map(streamKey).join(' ');
      const stale = last === null || last.key !== key || (last.unavailable.size > 0 && now() - last.at > FAILED_TTL_MS);
      if (stale) last = { key, at: now(), unavailable: probe(address, fresh) };
      return withoutUnavailableStreams(result, last?.unavailable ?? new Map(), configMaps);
    },
  };
}
