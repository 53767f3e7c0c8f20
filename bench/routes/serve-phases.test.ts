// The serve-first phases read from the controller's sync log line: the sync
// that pushed the pending set after the full build, or ahead of it (preview).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { servePhases } from './serve-phases.ts';

const ROUTE = { writtenAt: 10_000, servedAt: 10_500 };

void describe('servePhases', () => {
  void it('a push after the full build: informer, queue, build, backends, POST, workers, probe add up to the total', () => {
    // Sync started at 10,020 (time 10,420 - ms 400), kicked at 10,015.
    const line = { msg: 'sync', time: 10_420, ms: 400, kickedAt: 10_015, kicks: 1, buildMs: 300, applyMs: 60, pending: 1, pendingPostMs: 5, pendingWorkersMs: 10 };
    const phases = servePhases(ROUTE, [{ msg: 'sync', time: 9_990, ms: 10, pending: 1 }, line]);
    assert.deepEqual(phases, { informerMs: 15, informerBusyMs: 0, queueMs: 5, buildMs: 300, backendsMs: 45, postMs: 5, workersMs: 10, probeMs: 120, total: 500, kicks: 1, via: 'full build' });
  });

  void it('a preview: its own build and backends phases, held once the preview ended', () => {
    const line = { msg: 'sync', time: 10_420, ms: 400, kickedAt: 10_015, kicks: 1, buildMs: 300, applyMs: 60, preview: 1, previewMs: 40,
      previewBuildMs: 10, previewBackendsMs: 15, pendingPostMs: 5, pendingWorkersMs: 10 };
    assert.deepEqual(servePhases(ROUTE, [line]), { informerMs: 15, informerBusyMs: 0, queueMs: 5, buildMs: 10, backendsMs: 15, postMs: 5, workersMs: 10, probeMs: 440, total: 500, kicks: 1, via: 'preview' });
  });

  void it('a change already queued before the write: no informer phase, the queue counts from the write', () => {
    const line = { msg: 'sync', time: 10_420, ms: 400, kickedAt: 9_990, kicks: 2, buildMs: 300, applyMs: 60, pending: 1, pendingPostMs: 5, pendingWorkersMs: 10 };
    assert.equal(servePhases(ROUTE, [line])?.informerMs, null);
    assert.equal(servePhases(ROUTE, [line])?.queueMs, 20);
  });

  void it('the sync\'s own start stamp wins over the line\'s time less its duration (hooks run between them)', () => {
    const line = { msg: 'sync', time: 10_800, ms: 400, startedAt: 10_020, kickedAt: 10_015, kicks: 1, buildMs: 300, applyMs: 60, pending: 1, pendingPostMs: 5, pendingWorkersMs: 10 };
    assert.equal(servePhases(ROUTE, [line])?.queueMs, 5);
  });

  void it('the informer phase spent while another sync ran (the Service\'s build, say) is counted', () => {
    const other = { msg: 'sync', startedAt: 9_900, time: 10_012, ms: 112 }; // ran until 10,012: 12 ms of the 15
    const line = { msg: 'sync', time: 10_420, ms: 400, startedAt: 10_020, kickedAt: 10_015, kicks: 1, buildMs: 300, applyMs: 60, pending: 1, pendingPostMs: 5, pendingWorkersMs: 10 };
    assert.equal(servePhases(ROUTE, [other, line])?.informerBusyMs, 12);
  });

  void it('no pending push between the write and the first 200: served by its reload', () => {
    assert.equal(servePhases(ROUTE, [{ msg: 'sync', time: 10_420, ms: 400, buildMs: 300, applyMs: 60 }]), null);
  });
});
