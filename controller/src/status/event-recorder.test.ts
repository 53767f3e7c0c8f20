import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { CoreV1Event } from '@kubernetes/client-node';
import { pino } from 'pino';
import type { EventSink } from '../kube/cluster-writer.ts';
import { createEventRecorder, type EventTarget, type EventType, type RateLimit } from './event-recorder.ts';

/** An in-memory API: Events by namespace/name, with a switch to make writes fail. */
function fakeSink(): EventSink & { events: Map<string, CoreV1Event>; calls: string[]; failing: boolean } {
  const events = new Map<string, CoreV1Event>();
  const calls: string[] = [];
  const sink = {
    events, calls, failing: false,
    async create(event: CoreV1Event): Promise<void> {
      calls.push('create');
      if (sink.failing) throw new Error('API down');
      events.set(`${event.metadata.namespace}/${event.metadata.name}`, structuredClone(event));
    },
    async bump(namespace: string, name: string, count: number, lastTimestamp: Date): Promise<void> {
      calls.push('bump');
      const event = events.get(`${namespace}/${name}`);
      if (!event) throw Object.assign(new Error('not found'), { code: 404 });
      event.count = count;
      event.lastTimestamp = lastTimestamp;
    },
  };
  return sink;
}

const web: EventTarget = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'default', name: 'web', uid: 'uid-web' };
const api: EventTarget = { ...web, name: 'api', uid: 'uid-api' };

type Step = { record: [EventTarget, EventType, string, string]; times?: number } | { advanceMs: number } | { deleteAll: true };

const rows: {
  name: string;
  steps: Step[];
  perObject?: RateLimit;
  global?: RateLimit;
  /** Events stored at the end as `name reason count`, sorted. */
  stored: string[];
  dropped: number;
}[] = [
  {
    name: 'the same warning twice bumps count on one Event',
    steps: [{ record: [web, 'Warning', 'Conflict', 'held by default/old'], times: 2 }],
    stored: ['web Conflict 2'], dropped: 0,
  },
  {
    name: 'a different message is a different Event',
    steps: [{ record: [web, 'Warning', 'Conflict', 'held by default/old'] }, { record: [web, 'Warning', 'Conflict', 'held by default/older'] }],
    stored: ['web Conflict 1', 'web Conflict 1'], dropped: 0,
  },
  {
    name: 'one flooding Ingress is cut at its burst; another Ingress still gets through',
    perObject: { capacity: 3, refillPerSecond: 0.01 },
    steps: [{ record: [web, 'Warning', 'InvalidAnnotation', 'bad'], times: 10 }, { record: [api, 'Normal', 'Sync', 'live'] }],
    stored: ['api Sync 1', 'web InvalidAnnotation 3'], dropped: 7,
  },
  {
    name: 'the global bucket bounds all Ingresses together',
    perObject: { capacity: 5, refillPerSecond: 1 },
    global: { capacity: 2, refillPerSecond: 0.01 },
    steps: [{ record: [web, 'Warning', 'A', 'x'] }, { record: [api, 'Warning', 'A', 'x'] }, { record: [web, 'Warning', 'B', 'y'] }],
    stored: ['api A 1', 'web A 1'], dropped: 1,
  },
  {
    name: 'tokens come back with time',
    perObject: { capacity: 1, refillPerSecond: 1 },
    steps: [{ record: [web, 'Warning', 'A', 'x'], times: 2 }, { advanceMs: 1000 }, { record: [web, 'Warning', 'A', 'x'] }],
    stored: ['web A 2'], dropped: 1,
  },
  {
    name: 'an Event deleted meanwhile is written again instead of bumped',
    steps: [{ record: [web, 'Warning', 'A', 'x'] }, { deleteAll: true }, { record: [web, 'Warning', 'A', 'x'] }],
    stored: ['web A 1'], dropped: 0,
  },
];

void describe('event recorder', () => {
  for (const row of rows) {
    void it(row.name, async () => {
      const sink = fakeSink();
      let now = 1_700_000_000_000;
      const recorder = createEventRecorder({
        sink, logger: pino({ level: 'silent' }), component: 'resty-ingress', instance: 'pod-a',
        now: () => now, perObject: row.perObject, global: row.global,
      });
      for (const step of row.steps) {
        if ('advanceMs' in step) now += step.advanceMs;
        else if ('deleteAll' in step) { await recorder.flush(); sink.events.clear(); }
        else for (let i = 0; i < (step.times ?? 1); i++) recorder.record(...step.record);
      }
      await recorder.flush();
      const stored = [...sink.events.values()].map((e) => `${e.involvedObject.name} ${e.reason} ${e.count}`).sort();
      assert.deepEqual(stored, row.stored);
      assert.equal(recorder.stats().dropped, row.dropped);
    });
  }

  void it('writes what kubectl describe matches on: involvedObject with uid, type, source, timestamps', async () => {
    const sink = fakeSink();
    const recorder = createEventRecorder({ sink, logger: pino({ level: 'silent' }), component: 'resty-ingress', instance: 'pod-a', now: () => 1_700_000_000_000 });
    recorder.record(web, 'Warning', 'ReloadFailed', 'x'.repeat(5000));
    await recorder.flush();
    const [event] = sink.events.values();
    assert.deepEqual(event.involvedObject, web);
    assert.equal(event.type, 'Warning');
    assert.equal(event.source?.component, 'resty-ingress');
    assert.equal(event.reportingInstance, 'pod-a');
    assert.equal(event.metadata.namespace, 'default');
    assert.match(event.metadata.name ?? '', /^web\.[0-9a-f]+$/);
    assert.equal(event.firstTimestamp?.getTime(), 1_700_000_000_000);
    assert.ok((event.message ?? '').length <= 1024, 'long messages are cut');
  });

  void it('a failing API never throws into the caller and is counted as dropped', async () => {
    const sink = fakeSink();
    sink.failing = true;
    const recorder = createEventRecorder({ sink, logger: pino({ level: 'silent' }), component: 'c', instance: 'i' });
    assert.doesNotThrow(() => recorder.record(web, 'Warning', 'A', 'x'));
    await recorder.flush();
    assert.equal(recorder.stats().dropped, 1);
  });

  void it('a full queue drops instead of growing', async () => {
    const sink = fakeSink();
    const recorder = createEventRecorder({
      sink, logger: pino({ level: 'silent' }), component: 'c', instance: 'i', maxPending: 2,
      perObject: { capacity: 100, refillPerSecond: 1 },
    });
    for (let i = 0; i < 5; i++) recorder.record(web, 'Warning', 'A', `message ${i}`);
    await recorder.flush();
    assert.deepEqual([sink.events.size, recorder.stats().dropped], [2, 3]);
  });
});
