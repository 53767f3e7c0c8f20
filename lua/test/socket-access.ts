// Who can reach NGINX's fallback unix sockets: connect() to one as another
// user (a child process: the tests run as root to start NGINX as root), and
// the uid a user name has, for the owner NGINX gives the sockets' directory.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A user that is neither root, nor NGINX's workers, nor in their group. */
export const STRANGER = 12345;

/** The uid of `user` in /etc/passwd. */
export function uidOf(user: string): number {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((entry) => entry.startsWith(`${user}:`));
  assert.ok(line, `no user ${user} in /etc/passwd`);
  return Number(line.split(':')[2]);
}

/** connect() to the unix socket `path` as `uid` (needs root): "connected" or the error code (EACCES). */
export function connectAs(uid: number, path: string): Promise<string> {
  const code = `require('node:net').connect(process.argv[1]).on('connect', function () { console.log('connected'); this.destroy(); })
    .on('error', (err) => console.log(err.code));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', code, path], { uid, gid: uid, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', () => resolve(out.trim()));
  });
}
