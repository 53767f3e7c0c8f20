// NGINX's worker processes (ConfigMap only): how many, how many connections
// each, and how long old workers may finish after a reload. Printed in the main
// context (nginx.conf.njk); worker-processes `auto` leaves --worker-processes in charge.

import { accept, refuse, unsupported, type Checked } from '../checked.ts';
import type { WorkerSettings } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { atoi } from './values.ts';

const MAX_PROCESSES = 1024n;
const MIN_CONNECTIONS = 16n;
const MAX_CONNECTIONS = 1_048_576n;
/** A week, as the proxy timeouts. */
const MAX_SHUTDOWN_SECONDS = 604_800;
const TIME_UNIT_SECONDS: Readonly<Record<string, number>> = Object.freeze({ '': 1, s: 1, m: 60, h: 3600 });

function parseProcesses(value: string): Checked<WorkerSettings['processes']> {
  if (value === 'auto') return accept('auto');
  const count = atoi(value);
  if (count === null || count < 1n || count > MAX_PROCESSES) return refuse(`expected auto or an integer from 1 to ${MAX_PROCESSES}`);
  return accept(Number(count));
}

function parseConnections(value: string): Checked<number> {
  const count = atoi(value);
  if (count === null) return refuse('expected an integer');
  if (count === 0n) return unsupported('0 derives it from max-worker-open-files, which is not supported: give a number');
  if (count < MIN_CONNECTIONS || count > MAX_CONNECTIONS) return refuse(`expected an integer from ${MIN_CONNECTIONS} to ${MAX_CONNECTIONS}`);
  return accept(Number(count));
}

/** An NGINX time in whole seconds, minutes or hours (`240s`, `5m`, `240`), printed as seconds. */
export function parseShutdownTimeout(value: string): Checked<number> {
  const match = /^(\d{1,7})([smh]?)$/u.exec(value);
  if (!match) return refuse('expected a time such as 240s, 10m or 1h');
  const seconds = Number(match[1]) * (TIME_UNIT_SECONDS[match[2]!] ?? 1);
  return seconds <= MAX_SHUTDOWN_SECONDS ? accept(seconds) : refuse(`at most ${MAX_SHUTDOWN_SECONDS} seconds`);
}

export const workersFeature = defineFeature({
  name: 'workers',
  title: 'Worker processes',
  doc: 'worker_processes, worker_connections and worker_shutdown_timeout (ConfigMap only).',
  output: { kind: 'global' },
  defaults: { processes: 'auto', connections: 16_384, shutdownTimeout: 240 },
  keys: [
    field<WorkerSettings, 'processes'>('processes', parseProcesses, {
      configKey: 'worker-processes', defaultText: 'auto', doc: 'auto (one per CPU, ingress-nginx\'s default) or a number of worker processes; while it is auto, the command line\'s --worker-processes applies.',
    }),
    field<WorkerSettings, 'connections'>('connections', parseConnections, {
      configKey: 'max-worker-connections', defaultText: '16384', doc: 'worker_connections: connections each worker may hold (clients and backends).',
      difference: '0 (derived from max-worker-open-files) is refused',
    }),
    field<WorkerSettings, 'shutdownTimeout'>('shutdownTimeout', parseShutdownTimeout, {
      configKey: 'worker-shutdown-timeout', defaultText: '240s', doc: 'How long old workers may finish requests after a reload (whole s, m or h).',
    }),
  ],
  proof: ['controller/src/model/features/http-tuning.test.ts', 'controller/src/render/http-tuning-render.test.ts'],
});
