// The ssl-session-ticket-key file (tls-session-files.ts): the decoded key at the
// path nginx.conf names, 0600 in a 0700 folder; a new key is a new file while
// the previous one stays for the running configuration; no key, no folder.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ticketKeyFile, tlsSessionDir } from '../model/tls-session-files.ts';
import { writeTlsSessionFiles } from './tls-session-files.ts';

void describe('writeTlsSessionFiles', () => {
  const prefix = mkdtempSync(join(tmpdir(), 'tls-session-files-'));
  after(() => rmSync(prefix, { recursive: true, force: true }));
  const first = randomBytes(80);
  const second = randomBytes(48);
  const settingsOf = (bytes: Buffer): { ticketKey: string } => ({ ticketKey: bytes.toString('base64') });

  void it('writes the decoded key where nginx.conf names it, readable by its owner only', () => {
    const kept = writeTlsSessionFiles(prefix, settingsOf(first));
    const file = ticketKeyFile(prefix, settingsOf(first));
    assert.ok(file !== null);
    assert.deepEqual(readFileSync(file.path), first);
    assert.equal(statSync(file.path).mode & 0o777, 0o600);
    assert.equal(statSync(tlsSessionDir(prefix)).mode & 0o777, 0o700);
    assert.deepEqual([...kept], [file.path.split('/').pop()]);
    assert.ok(!file.path.includes(settingsOf(first).ticketKey.slice(0, 8)), 'the name is a fingerprint, not the key');
  });

  void it('a new key is a new file; the previous one stays one more write for the running NGINX', () => {
    const kept = writeTlsSessionFiles(prefix, settingsOf(first));
    const next = writeTlsSessionFiles(prefix, settingsOf(second), kept);
    assert.equal(readdirSync(tlsSessionDir(prefix)).length, 2);
    assert.deepEqual(readFileSync(ticketKeyFile(prefix, settingsOf(second))!.path), second);
    writeTlsSessionFiles(prefix, settingsOf(second), next);
    assert.deepEqual(readdirSync(tlsSessionDir(prefix)), [...next]);
  });

  void it('no key: the folder goes once nothing is kept', () => {
    const kept = writeTlsSessionFiles(prefix, { ticketKey: null }, new Set(readdirSync(tlsSessionDir(prefix))));
    assert.equal(kept.size, 0);
    assert.ok(existsSync(tlsSessionDir(prefix)), 'kept for the running configuration');
    writeTlsSessionFiles(prefix, { ticketKey: null }, kept);
    assert.ok(!existsSync(tlsSessionDir(prefix)));
    writeTlsSessionFiles(prefix, undefined);
    assert.ok(!existsSync(tlsSessionDir(prefix)));
  });
});
