// The command as users run it: bad flags exit 2 with one clear line before
// anything starts (no NGINX, no API connection); --help lists every flag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/resty-ingress.js', import.meta.url));

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  // An unreachable kubeconfig: if the command got as far as connecting, it would fail differently.
  const res = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8', timeout: 20_000, env: { ...process.env, KUBECONFIG: '/nonexistent/kubeconfig' },
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

const rows: { name: string; args: string[]; code: number; out: RegExp; stream: 'stdout' | 'stderr' }[] = [
  { name: '--help lists flags with defaults', args: ['--help'], code: 0, stream: 'stdout',
    out: /--ingress-class[\s\S]*default: "resty"[\s\S]*--annotations-prefix[\s\S]*--http-port <port>[^\n]*default: 80/ },
  { name: 'an unknown flag', args: ['--no-such-flag'], code: 2, stream: 'stderr', out: /no-such-flag/ },
  { name: 'a port that is not a number', args: ['--http-port', 'eighty'], code: 2, stream: 'stderr', out: /--http-port/ },
  { name: 'a bad namespace/name', args: ['--default-backend-service', 'no-slash'], code: 2, stream: 'stderr', out: /--default-backend-service/ },
];

for (const row of rows) {
  test(`resty-ingress command: ${row.name}`, () => {
    const res = run(row.args);
    assert.equal(res.code, row.code, `${res.stdout}${res.stderr}`);
    assert.match(res[row.stream], row.out);
    if (row.code !== 0) assert.equal(res.stderr.trim().split('\n').length, 1, `one line: ${res.stderr}`);
  });
}

test('resty-ingress command: an unreadable kubeconfig fails fast with a clear message', () => {
  const res = run(['--kubeconfig', '/nonexistent/kubeconfig', '--nginx-prefix', '/tmp/resty-main-test']);
  assert.equal(res.code, 1);
  assert.match(res.stdout + res.stderr, /kubeconfig/i);
});
