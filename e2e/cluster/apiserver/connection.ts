// How clients reach the server: a throw-away self-signed serving
// certificate made with openssl at start (client-go, so kubectl and helm,
// send bearer tokens only over TLS), and kubeconfigs that carry a user's
// bearer token with that certificate as the cluster CA.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isIP } from 'node:net';
import { stringify } from 'yaml';

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

export function kubeconfigYaml(server: string, user: string, token: string, caPem?: string): string {
  const name = 'resty-e2e';
  const cluster: Record<string, string> = { server };
  if (caPem) cluster['certificate-authority-data'] = Buffer.from(caPem).toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name, context: { cluster: name, user, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}
