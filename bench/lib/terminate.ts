// Stopping a benchmark's child process (NGINX, the controller): SIGTERM,
// SIGKILL when it outlives the grace period, then its exit. The grace timer
// does not hold the event loop: a finished run sat out the 15 s grace of the
// last controller it had stopped before the process could exit (the smoke
// test in `npm test` waited those seconds too).
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

/** True once `child` has exited (or was killed). */
function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

export async function terminate(child: ChildProcess, graceMs: number): Promise<void> {
  if (hasExited(child)) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  if (!(await Promise.race([exited.then(() => true), sleep(graceMs, false, { ref: false })]))) child.kill('SIGKILL');
  await exited;
}
