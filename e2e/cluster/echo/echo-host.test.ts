// The echo host: servers in one child process that answer like in-process
// ones, close on request, report a taken address, and die with their parent.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { childExecArgv, startEchoHost } from './echo-host.ts';
import type { EchoReply } from './echo-server.ts';

/** True while a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (!alive(pid)) return true;
  return !alive(pid);
}

void describe('startEchoHost', { timeout: 30_000 }, () => {
  void it('serves several pods from one child, closes one on request, and stop() ends the child', async () => {
    const host = await startEchoHost();
    try {
      assert.notEqual(host.pid, process.pid);
      const pods = [
        { host: '127.0.97.1', podName: 'web-a-11111' },
        { host: '127.0.97.2', podName: 'web-b-22222' },
      ];
      const servers = await Promise.all(pods.map((pod) => host.startServer({ ...pod, port: 0 })));
      for (const [index, server] of servers.entries()) {
        const res = await fetch(`${server.url}/some/path?q=1`, { headers: { 'x-test': 'hosted' } });
        const reply = (await res.json()) as EchoReply;
        assert.deepEqual(
          { status: res.status, xPod: res.headers.get('x-pod'), pod: reply.pod, path: reply.path, xTest: reply.headers['x-test'] },
          { status: 200, xPod: pods[index]?.podName, pod: pods[index]?.podName, path: '/some/path?q=1', xTest: 'hosted' },
        );
      }
      const [first, second] = servers;
      assert.ok(first && second);
      await first.close();
      await assert.rejects(fetch(first.url), 'a closed server must stop answering');
      assert.equal((await fetch(second.url)).headers.get('x-pod'), 'web-b-22222');
    } finally {
      await host.stop();
    }
    assert.ok(await waitGone(host.pid, 2_000), `child ${host.pid} still running after stop()`);
  });

  const badStarts = [
    { label: 'an address already in use', second: (port: number) => ({ host: '127.0.97.3', port, podName: 'dup' }), want: /EADDRINUSE.*127\.0\.97\.3/ },
    { label: 'a non-loopback host', second: () => ({ host: '10.0.0.1', port: 0, podName: 'far' }), want: /loopback IPv4/ },
  ];
  for (const row of badStarts) {
    void it(`rejects ${row.label} with the child's message and keeps serving`, async () => {
      const host = await startEchoHost();
      try {
        const taken = await host.startServer({ host: '127.0.97.3', port: 0, podName: 'owner' });
        await assert.rejects(host.startServer(row.second(taken.port)), row.want);
        assert.equal((await fetch(taken.url)).headers.get('x-pod'), 'owner');
      } finally {
        await host.stop();
      }
    });
  }

  void it('the child exits by itself when its parent dies', async () => {
    // A parent that starts a host, reports the child's pid, then is SIGKILLed (no stop(), no cleanup).
    const script = `import(${JSON.stringify(new URL('./echo-host.ts', import.meta.url).href)})`
      + '.then(async (m) => { const h = await m.startEchoHost(); console.log(h.pid); })';
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const parentExit = once(parent, 'exit');
    try {
      const [chunk] = (await once(parent.stdout, 'data')) as [Buffer];
      const childPid = Number(chunk.toString().trim());
      assert.ok(childPid > 0 && alive(childPid), `no live child pid in ${JSON.stringify(chunk.toString())}`);
      parent.kill('SIGKILL');
      await parentExit;
      assert.ok(await waitGone(childPid, 3_000), `child ${childPid} outlived its parent`);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  const argvRows = [
    { label: 'keeps runtime flags', execArgv: ['--max-old-space-size=512', '--no-warnings'], want: ['--max-old-space-size=512', '--no-warnings'] },
    { label: 'drops -e and its code', execArgv: ['--input-type=module', '-e', 'import("x")', '--no-warnings'], want: ['--no-warnings'] },
    { label: 'drops the test runner and inspector flags', execArgv: ['--test-timeout=0', '--inspect-port=127.0.0.1:9229', '--stack-trace-limit=10'], want: ['--stack-trace-limit=10'] },
  ];
  for (const row of argvRows) {
    void it(`childExecArgv ${row.label}`, () => {
      assert.deepEqual(childExecArgv(row.execArgv), row.want);
    });
  }
});
