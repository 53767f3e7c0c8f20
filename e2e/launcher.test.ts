// E2E: bin/resty-ingress.js runs the controller in a Node with 16 MB
// semi-spaces (same process id, same arguments), unless the operator chose a
// semi-space size, on the node command line or in NODE_OPTIONS. `migrate` (a
// one-shot report) runs as it is.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../controller/src/nginx/dataplane.ts';

// RESTY_E2E_LAUNCHER=dist/bin/resty-ingress.js: the bundle's launcher (e2e/harness/controller.ts).
const LAUNCHER = resolve(repoRoot(), process.env.RESTY_E2E_LAUNCHER ?? 'bin/resty-ingress.js');
// Preloaded before the launcher, and again after a re-exec: reports which Node runs it.
const REPORT = `data:text/javascript,process.stderr.write('LAUNCHED '+JSON.stringify({pid:process.pid,execArgv:process.execArgv.filter((a)=>!a.startsWith('--import')&&!a.startsWith('data:'))})+'\\n')`;

interface Launch {
  readonly code: number | null;
  readonly stdout: string;
  readonly runs: { pid: number; execArgv: string[] }[];
  readonly pid: number | undefined;
}

async function launch(nodeArgs: string[], args: string[], env: NodeJS.ProcessEnv = {}): Promise<Launch> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', REPORT, LAUNCHER, ...args], {
    env: { ...process.env, NODE_OPTIONS: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  const runs = stderr.split('\n').filter((l) => l.startsWith('LAUNCHED ')).map((l) => JSON.parse(l.slice('LAUNCHED '.length)) as Launch['runs'][number]);
  return { code, stdout, runs, pid: child.pid };
}

const rows: { name: string; nodeArgs: string[]; env?: NodeJS.ProcessEnv; finalExecArgv: string[]; runs: number }[] = [
  { name: 'default: re-executed once with 16 MB semi-spaces', nodeArgs: [], finalExecArgv: ['--max-semi-space-size=16'], runs: 2 },
  { name: 'a size on the node command line is kept', nodeArgs: ['--max-semi-space-size=32'], finalExecArgv: ['--max-semi-space-size=32'], runs: 1 },
  { name: 'a size in NODE_OPTIONS is kept', nodeArgs: [], env: { NODE_OPTIONS: '--max-semi-space-size=8' }, finalExecArgv: [], runs: 1 },
  { name: 'other node flags survive the re-exec', nodeArgs: ['--no-warnings'], finalExecArgv: ['--max-semi-space-size=16', '--no-warnings'], runs: 2 },
];

void describe('bin/resty-ingress.js', () => {
  for (const row of rows) {
    void it(row.name, async () => {
      const result = await launch(row.nodeArgs, ['--help'], row.env);
      assert.equal(result.code, 0);
      assert.match(result.stdout, /Usage: resty-ingress/, 'the arguments reached the controller');
      assert.equal(result.runs.length, row.runs, JSON.stringify(result.runs));
      assert.ok(result.runs.every((run) => run.pid === result.pid), 'one process throughout');
      assert.deepEqual(result.runs.at(-1)?.execArgv, row.finalExecArgv);
    });
  }

  void it('migrate: a one-shot command, run as it is (no re-exec)', async () => {
    const result = await launch([], ['migrate', '--help']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /Usage: resty-ingress migrate/);
    assert.equal(result.runs.length, 1, JSON.stringify(result.runs));
  });

  void it('compiled code is cached for the next start (a restart imports faster)', async () => {
    // No NODE_COMPILE_CACHE (Node would cache by itself): the launcher turns it on, in the temp folder.
    const temp = mkdtempSync(join(tmpdir(), 'resty-compile-cache-'));
    try {
      assert.equal(process.env.NODE_COMPILE_CACHE, undefined, 'this test needs NODE_COMPILE_CACHE unset');
      const result = await launch([], ['--help'], { TMPDIR: temp });
      assert.equal(result.code, 0);
      const entries = readdirSync(join(temp, 'node-compile-cache'), { recursive: true, encoding: 'utf8' });
      assert.ok(entries.length > 1, `the cache folder holds the compiled modules (${entries.length} entries)`);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  });

  void it('a bad flag still exits 2 after the re-exec', async () => {
    const result = await launch([], ['--no-such-flag']);
    assert.equal(result.code, 2);
    assert.equal(result.runs.length, 2);
  });
});
