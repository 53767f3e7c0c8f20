// E2E: `node e2e/playground.ts` (what `npm start` runs after setup) as a
// script drives it: read the KEY=value lines until READY, run the printed
// curl command, use the printed KUBECONFIG with kubectl, then signal it and
// check that every process it started is gone and its files are removed.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { listProcesses, probeTcp, REPO_ROOT, request, runKubectl, waitFor } from './harness/index.ts';

const sh = promisify(execFile);

/** Reads stdout lines until READY; resolves with KEY=value pairs and the other lines. */
function readUntilReady(child: ChildProcess, timeoutMs: number): Promise<{ values: Map<string, string>; lines: string[] }> {
  const values = new Map<string, string>();
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no READY within ${timeoutMs} ms; stdout:\n${lines.join('\n')}`)), timeoutMs);
    const reader = createInterface({ input: child.stdout! });
    reader.on('line', (line) => {
      lines.push(line);
      const pair = /^([A-Z]+)=(\S+)$/.exec(line);
      if (pair) values.set(pair[1], pair[2]);
      if (line === 'READY') { clearTimeout(timer); resolve({ values, lines }); }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`playground exited ${code} before READY:\n${lines.join('\n')}`)); });
  });
}

/** Every live process below `root`, and the members of process groups led by one of them (NGINX). */
function descendantsOf(root: number): number[] {
  const all = listProcesses();
  const found = new Set<number>([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const proc of all) if (!found.has(proc.pid) && found.has(proc.ppid)) { found.add(proc.pid); grew = true; }
  }
  const groups = new Set(all.filter((p) => found.has(p.pid) && p.pid === p.pgid && p.pid !== root).map((p) => p.pid));
  for (const proc of all) if (groups.has(proc.pgid)) found.add(proc.pid);
  found.delete(root);
  return [...found];
}

/** Runs a printed curl command as a user would and parses its JSON; a failure shows the status, the body and the playground's log. */
async function curlJson<T>(command: string, log: string): Promise<T> {
  const { stdout } = await sh('/bin/sh', ['-c', `${command} -s -w '\\n%{http_code}'`]);
  const status = stdout.slice(stdout.lastIndexOf('\n') + 1);
  const body = stdout.slice(0, stdout.lastIndexOf('\n'));
  try {
    return JSON.parse(body) as T;
  } catch {
    throw new Error(`${command} answered ${status}, not JSON:\n${body.slice(0, 500)}\nplayground stderr:\n${log}`);
  }
}

const SIGNALS = [{ name: 'SIGTERM stops everything', signal: 'SIGTERM' as const }, { name: 'Ctrl-C (SIGINT) stops everything', signal: 'SIGINT' as const }];

for (const row of SIGNALS) {
  test(`playground: ${row.name}`, async (t) => {
    const child = spawn(process.execPath, ['e2e/playground.ts'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // A failed assertion leaves the playground running: stop it the way a user does, so its
    // controller and NGINX go too (SIGKILL alone would orphan them, still holding their ports).
    t.after(async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    });

    const { values, lines } = await readUntilReady(child, 60_000);
    const kubeconfig = values.get('KUBECONFIG');
    const http = values.get('HTTP');
    assert.ok(kubeconfig && existsSync(kubeconfig), `KUBECONFIG line names a file: ${kubeconfig}`);
    assert.match(http ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    // HTTPS and metrics exist now: both lines are required, and both answer.
    for (const key of ['HTTPS', 'METRICS']) {
      const url = values.get(key);
      assert.ok(url, `${key}= is printed`);
      assert.ok(await probeTcp(new URL(url).hostname, Number(new URL(url).port)), `${key}=${url} listens`);
    }
    const metrics = await fetch(values.get('METRICS')!);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^nginx_ingress_controller_config_hash/m, 'METRICS serves the controller metrics');

    // The printed curl command, as a user would paste it.
    const curl = lines.find((line) => line.trim().startsWith('curl ') && line.includes('demo.localtest'));
    assert.ok(curl, 'a curl command is printed');
    const answer = await curlJson<{ pod: string; path: string }>(curl.trim(), stderr);
    assert.match(answer.pod, /^demo-/);
    const curlHttps = lines.find((line) => line.trim().startsWith('curl -k '));
    assert.ok(curlHttps, 'an HTTPS curl command is printed with HTTPS=');
    const overTls = await curlJson<{ pod: string }>(curlHttps.replace(/#.*$/, '').trim(), stderr);
    assert.match(overTls.pod, /^demo-/);

    // kubectl with the printed kubeconfig: scale to 3, then three pods answer.
    const scaled = await runKubectl(kubeconfig, ['scale', 'deployment/demo', '--replicas=3']);
    assert.equal(scaled.code, 0, scaled.stderr);
    await waitFor('3 demo pods answering', async () => {
      const pods = new Set<string | null>();
      for (let i = 0; i < 9; i++) pods.add((await request(http!, { host: 'demo.localtest' })).pod);
      return pods.size === 3 ? true : undefined;
    }, { timeoutMs: 15_000 });

    const processes = descendantsOf(child.pid!);
    assert.ok(processes.length >= 3, `the controller and NGINX run under the playground (${processes.length} processes)`);
    child.kill(row.signal);
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise((resolve) => { timer = setTimeout(() => resolve('no exit within 20 s'), 20_000); })]);
    clearTimeout(timer);
    assert.equal(code, 0, `exit code; stderr:\n${stderr}`);
    const alive = new Set(listProcesses().map((p) => p.pid));
    assert.deepEqual(processes.filter((pid) => alive.has(pid)), [], 'processes outlived the playground');
    assert.equal(await probeTcp('127.0.0.1', Number(new URL(http!).port)), false, 'HTTP no longer listens');
    assert.equal(existsSync(kubeconfig), false, 'the kubeconfig folder is removed');
  });
}
