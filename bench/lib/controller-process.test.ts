// startControllerProcess against a controller that cannot start: the wait
// ends when the process exits, with its own error, not at the ready timeout
// (a full bench run once sat 120 s on a controller that had exited at once).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startControllerProcess } from './controller-process.ts';

test('a controller that exits before it is ready fails the start with its exit and stderr', async () => {
  const workDir = mkdtempSync(join(tmpdir(), 'controller-process-'));
  const kubeconfigPath = join(workDir, 'kubeconfig');
  writeFileSync(kubeconfigPath, '');
  await assert.rejects(
    startControllerProcess({ kubeconfigPath, workDir, readyTimeoutMs: 60_000, extraArgs: ['--no-such-flag'] }),
    (err: Error) => /^controller exited 2: .*no-such-flag/s.test(err.message),
  );
});
