// The CLI: starts the server, prints a kubeconfig path that kubectl can use, stops on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { KUBECTL, runTool } from './testing.ts';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), 'main.ts');

void test('main.ts prints a working kubeconfig path and exits on SIGTERM', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'apiserver-main-'));
  const child = spawn(process.execPath, [MAIN, '--kubeconfig', join(dir, 'kc')], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const [line] = await Promise.race([
      once(child.stdout, 'data') as Promise<Buffer[]>,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('main.ts printed nothing in 10s')), 10_000)),
    ]);
    const path = line.toString().trim();
    assert.equal(path, join(dir, 'kc'));
    const res = await runTool(KUBECTL, ['get', 'ns', 'kube-system', '-o', 'name'], { KUBECONFIG: path, HOME: dir });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout.trim(), 'namespace/kube-system');
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit') as [number | null];
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

void test('main.ts rejects a non-loopback host with a clear error', async () => {
  const res = await runTool(process.execPath, [MAIN, '--host', '10.0.0.1'], {});
  assert.equal(res.code, 1);
  assert.match(res.stderr, /--host must be a loopback address/);
});
