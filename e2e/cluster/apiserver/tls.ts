// A throw-away self-signed serving certificate, made with openssl at start.
// client-go (kubectl, helm) sends bearer tokens only over TLS, so the API
// server speaks HTTPS and the kubeconfig carries this certificate as its CA.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isIP } from 'node:net';

export interface ServingCert {
  readonly key: string;
  readonly cert: string;
}

function run(cmd: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: 30_000 }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`${cmd} failed: ${stderr || err.message}`));
      else resolve();
    });
  });
}

/** Self-signed P-256 certificate valid for `host` (an IP or name) and localhost, for 7 days. */
export async function makeServingCert(host: string): Promise<ServingCert> {
  const dir = await mkdtemp(join(tmpdir(), 'resty-apiserver-tls-'));
  try {
    const keyPath = join(dir, 'tls.key');
    const certPath = join(dir, 'tls.crt');
    const san = [isIP(host) ? `IP:${host}` : `DNS:${host}`, 'DNS:localhost', 'IP:127.0.0.1'];
    await run('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', keyPath, '-out', certPath, '-days', '7', '-subj', '/CN=resty-e2e-apiserver',
      '-addext', `subjectAltName=${[...new Set(san)].join(',')}`,
    ]);
    return { key: await readFile(keyPath, 'utf8'), cert: await readFile(certPath, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
