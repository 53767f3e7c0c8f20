// The webhook's start with certificate files (--validating-webhook-certificate):
// nothing listens before the Store's lists are complete, it serves (and says
// so, for readiness) once they are, a certificate it cannot read fails the
// start without claiming to serve. The managed certificate needs an API
// server: e2e/webhook-readiness.test.ts and e2e/webhook-certificate.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { freePort } from '../../e2e/harness/network.ts';
import { startAdmissionLifecycle } from './admission-lifecycle.ts';
import { parseOptions } from './cli/options.ts';
import type { Snapshot } from './model/types.ts';
import { createCa, issueServing } from './webhook-cert/certificates.ts';

const emptySnapshot: Snapshot = { ingresses: [], ingressClasses: [], services: [], endpointSlices: [], secrets: [], configMaps: [] };
const NAME = 'webhook.test';

/** true: a TLS handshake verified against `ca` for NAME; false: nothing verified (refused, or another certificate). */
function handshake(port: number, ca: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername: NAME, timeout: 2000 }, () => { socket.destroy(); resolve(true); });
    socket.on('timeout', () => { socket.destroy(); resolve(false); });
    socket.on('error', () => resolve(false));
  });
}

function certificateFiles(dir: string): { cert: string; key: string; ca: string } {
  const now = new Date();
  const later = new Date(now.getTime() + 3_600_000);
  const ca = createCa(now, later);
  const serving = issueServing(ca, [NAME], now, later);
  const cert = join(dir, 'tls.crt');
  const key = join(dir, 'tls.key');
  writeFileSync(cert, serving.certPem);
  writeFileSync(key, serving.keyPem);
  return { cert, key, ca: ca.certPem };
}

void describe('admission lifecycle with certificate files', () => {
  void it('off: no lifecycle at all', () => {
    const lifecycle = startAdmissionLifecycle({
      opts: parseOptions([]), kc: new KubeConfig(), logger: pino({ level: 'silent' }), snapshot: () => emptySnapshot,
      build: () => assert.fail('no review'), onReviewed: () => undefined, warn: () => undefined, onServing: () => assert.fail('no webhook'),
    });
    assert.equal(lifecycle, null);
  });

  const rows = [
    { name: 'readable files: serves once the lists are complete', readable: true },
    { name: 'a missing key file: the start fails, never claimed to serve', readable: false },
  ];
  for (const row of rows) {
    void it(row.name, async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'admission-lifecycle-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const files = certificateFiles(dir);
      const port = await freePort();
      let served = 0;
      const lifecycle = startAdmissionLifecycle({
        opts: parseOptions([
          `--validating-webhook=127.0.0.1:${port}`,
          `--validating-webhook-certificate=${files.cert}`,
          `--validating-webhook-key=${row.readable ? files.key : join(dir, 'absent.key')}`,
        ]),
        kc: new KubeConfig(), logger: pino({ level: 'silent' }), snapshot: () => emptySnapshot,
        build: () => assert.fail('no review'), onReviewed: () => undefined, warn: () => undefined, onServing: () => { served += 1; },
      });
      assert.ok(lifecycle);
      t.after(() => lifecycle.stop());
      assert.equal(await handshake(port, files.ca), false, 'nothing listens before the lists are complete');
      assert.equal(served, 0);
      if (!row.readable) {
        await assert.rejects(lifecycle.cachesSynced(), /--validating-webhook-key/);
        assert.equal(served, 0, 'not serving: readiness keeps failing');
        assert.equal(await handshake(port, files.ca), false);
        return;
      }
      await lifecycle.cachesSynced();
      assert.equal(served, 1, 'serving, said once');
      assert.equal(await handshake(port, files.ca), true, 'the handshake verifies with the files\' certificate');
      await lifecycle.stop();
      assert.equal(await handshake(port, files.ca), false, 'stopped');
    });
  }
});
