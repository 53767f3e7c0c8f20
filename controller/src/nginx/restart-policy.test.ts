// Backoff between restart attempts, the reset after a success, the state
// push afterwards, and cancel.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRestartPolicy } from './restart-policy.ts';
import { eventually, recordingLogger } from './nginx-test-support.ts';

/** A restart that fails `failures` times, then succeeds; records when each attempt ran. */
function scriptedRestart(failures: number) {
  const attempts: number[] = [];
  return {
    attempts,
    restart: async (): Promise<boolean> => {
      attempts.push(Date.now());
      if (attempts.length <= failures) throw new Error(`attempt ${attempts.length} failed`);
      return true;
    },
  };
}

describe('createRestartPolicy', () => {
  const rows = [
    { name: 'first attempt succeeds', failures: 0, delays: [10] },
    { name: 'two failures double the delay', failures: 2, delays: [10, 20, 40] },
    { name: 'the delay is capped', failures: 4, delays: [10, 20, 40, 50, 50] },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const { logger, lines } = recordingLogger();
      const script = scriptedRestart(row.failures);
      let pushes = 0;
      const policy = createRestartPolicy({
        backoff: { initialMs: 10, maxMs: 50 },
        logger,
        restart: script.restart,
        afterRestart: async () => {
          pushes += 1;
        },
      });
      policy.schedule();
      await eventually('success', () => pushes === 1);
      // Each planned attempt logs the delay it waits.
      const delays = lines.filter((line) => line.msg === 'restarting NGINX').map((line) => line.delayMs);
      assert.deepEqual(delays, row.delays);
      assert.equal(script.attempts.length, row.failures + 1);
      assert.equal(policy.nextDelayMs(), 10, 'a success resets the backoff');
      policy.cancel();
    });
  }

  it('nothing runs after cancel', async () => {
    const { logger } = recordingLogger();
    const script = scriptedRestart(0);
    const policy = createRestartPolicy({ backoff: { initialMs: 10 }, logger, restart: script.restart });
    policy.schedule();
    policy.cancel();
    policy.schedule();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(script.attempts.length, 0);
  });

  it('a failing state push is logged, not retried as a restart', async () => {
    const { logger, lines } = recordingLogger();
    const script = scriptedRestart(0);
    const policy = createRestartPolicy({
      backoff: { initialMs: 1 },
      logger,
      restart: script.restart,
      afterRestart: () => Promise.reject(new Error('push failed')),
    });
    policy.schedule();
    await eventually('the push failure logged', () => lines.some((line) => /restoring state/.test(line.msg)));
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(script.attempts.length, 1);
    policy.cancel();
  });
});
