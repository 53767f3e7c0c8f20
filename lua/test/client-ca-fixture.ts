// CAs and client certificates made with the openssl command line, for the
// client-certificate tests (Lua inside NGINX and e2e): a root CA, an
// intermediate under it, clients signed by either, and a stranger CA.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ClientCertFiles {
  /** PEM of the certificate. */
  readonly cert: string;
  readonly certPath: string;
  readonly keyPath: string;
}

export interface ClientCaFixture {
  readonly dir: string;
  readonly ca: ClientCertFiles;
  readonly otherCa: ClientCertFiles;
  /** CN=alice,O=Eng signed by `ca`. */
  readonly alice: ClientCertFiles;
  /** CN=mallory signed by `otherCa`. */
  readonly mallory: ClientCertFiles;
  /** CN=deep signed by an intermediate of `ca`; `deepChainPath` holds it with the intermediate. */
  readonly deep: ClientCertFiles;
  readonly deepChainPath: string;
  /** The intermediate's certificate. */
  readonly intermediate: ClientCertFiles;
}

async function selfSigned(dir: string, name: string, subject: string, extra: string[] = []): Promise<ClientCertFiles> {
  const certPath = join(dir, `${name}.crt`);
  const keyPath = join(dir, `${name}.key`);
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '2', '-subj', subject, ...extra]);
  return { cert: readFileSync(certPath, 'utf8'), certPath, keyPath };
}

async function signed(dir: string, name: string, subject: string, issuer: ClientCertFiles, ca: boolean): Promise<ClientCertFiles> {
  const certPath = join(dir, `${name}.crt`);
  const keyPath = join(dir, `${name}.key`);
  const csrPath = join(dir, `${name}.csr`);
  await run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', csrPath, '-subj', subject]);
  const args = ['x509', '-req', '-in', csrPath, '-CA', issuer.certPath, '-CAkey', issuer.keyPath, '-CAcreateserial', '-out', certPath, '-days', '2'];
  if (ca) {
    const extPath = join(dir, `${name}.ext`);
    writeFileSync(extPath, 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n');
    args.push('-extfile', extPath);
  }
  await run('openssl', args);
  return { cert: readFileSync(certPath, 'utf8'), certPath, keyPath };
}

/** Makes every certificate in a new temp folder (the caller removes `dir`). */
export async function makeClientCaFixture(): Promise<ClientCaFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'resty-client-ca-'));
  const [ca, otherCa] = await Promise.all([
    selfSigned(dir, 'ca', '/CN=Test Client CA', ['-addext', 'basicConstraints=critical,CA:TRUE']),
    selfSigned(dir, 'other-ca', '/CN=Other CA', ['-addext', 'basicConstraints=critical,CA:TRUE']),
  ]);
  const [alice, mallory, intermediate] = await Promise.all([
    signed(dir, 'alice', '/CN=alice/O=Eng', ca, false),
    signed(dir, 'mallory', '/CN=mallory', otherCa, false),
    signed(dir, 'intermediate', '/CN=Test Intermediate', ca, true),
  ]);
  const deep = await signed(dir, 'deep', '/CN=deep', intermediate, false);
  const deepChainPath = join(dir, 'deep-chain.crt');
  writeFileSync(deepChainPath, deep.cert + intermediate.cert);
  return { dir, ca, otherCa, alice, mallory, deep, deepChainPath, intermediate };
}
