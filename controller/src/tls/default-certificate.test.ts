import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultCertificatePaths } from '../render/render-options.ts';
import { writeSelfSignedDefault } from './default-certificate.ts';
import { generateKeyPem } from './self-signed.ts';

void describe('writeSelfSignedDefault', () => {
  void it('writes the pair; only the folder holding the key is private, not the prefix it creates', () => {
    const dir = mkdtempSync(join(tmpdir(), 'default-cert-'));
    try {
      const prefix = join(dir, 'nginx');
      const files = defaultCertificatePaths(prefix);
      const made = writeSelfSignedDefault(files);
      assert.equal(readFileSync(files.certificate, 'utf8'), made.cert);
      assert.equal(statSync(files.key).mode & 0o777, 0o600, 'key readable by its owner only');
      assert.equal(statSync(join(prefix, 'ssl')).mode & 0o777, 0o700, 'the key folder is private');
      // NGINX workers (nobody, when the master is root) must enter the prefix for temp files and logs.
      assert.equal(statSync(prefix).mode & 0o001, 0o001, `prefix mode ${(statSync(prefix).mode & 0o777).toString(8)}: others can enter`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void it('is named as ingress-nginx\'s fake certificate: monitoring matches on its subject', () => {
    const dir = mkdtempSync(join(tmpdir(), 'default-cert-'));
    try {
      const files = defaultCertificatePaths(join(dir, 'nginx'));
      writeSelfSignedDefault(files);
      const cert = new X509Certificate(readFileSync(files.certificate));
      // Go's crypto/x509 writes O before CN; openssl prints it `O = Acme Co, CN = Kubernetes Ingress Controller Fake Certificate`.
      assert.equal(cert.subject, 'O=Acme Co\nCN=Kubernetes Ingress Controller Fake Certificate');
      assert.equal(cert.issuer, cert.subject, 'self-signed');
      assert.equal(cert.subjectAltName, 'DNS:ingress.local');
      assert.ok(cert.checkPrivateKey(createPrivateKey(readFileSync(files.key))), 'the key matches');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void it('certifies the key it is given: generateKeyPem\'s, made off the event loop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'default-cert-'));
    try {
      const keyPem = await generateKeyPem();
      const files = defaultCertificatePaths(join(dir, 'nginx'));
      const made = writeSelfSignedDefault(files, keyPem);
      assert.equal(made.key, keyPem);
      assert.equal(readFileSync(files.key, 'utf8'), keyPem);
      const key = createPrivateKey(keyPem);
      assert.equal(key.asymmetricKeyType, 'rsa');
      assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048);
      assert.ok(new X509Certificate(made.cert).checkPrivateKey(key), 'the certificate is for that key');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
