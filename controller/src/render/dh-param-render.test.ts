// ssl-dh-param through real NGINX: with the Secret's parameters (written where
// nginx.conf names them, as the controller does) a client offering only a DHE
// cipher of ssl-ciphers completes a TLS 1.2 handshake; without them NGINX has
// no DHE cipher to offer and the handshake fails.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { connect } from 'node:tls';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import type { Model, TlsSessionSettings } from '../model/types.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { writeTlsSessionFiles } from '../nginx/tls-session-files.ts';
import { RenderError } from './nginx-values.ts';
import { renderConfig } from './render-config.ts';
import { DEFAULT_SETTINGS, goldenOptions, model, notFound, server } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx } from './testdata/nginx-runner.ts';

const FFDHE2048 = readFileSync(new URL('../model/testdata/ffdhe2048.pem', import.meta.url), 'utf8');

function site(dhParam: string | null): Model {
  const tlsSession: TlsSessionSettings = { ...DEFAULT_SETTINGS.tlsSession, dhParam };
  return model([server('_', [notFound('/')])], [], { ...DEFAULT_SETTINGS, tlsSession });
}

/** A TLS 1.2 handshake offering only `cipher`: the cipher agreed, or the error. */
function handshake(port: number, cipher: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', servername: 'app.example.com', rejectUnauthorized: false, maxVersion: 'TLSv1.2', ciphers: cipher });
    socket.setTimeout(5000, () => { socket.destroy(); resolve('timeout'); });
    socket.once('secureConnect', () => { const agreed = socket.getCipher().standardName; socket.end(); resolve(agreed); });
    socket.once('error', (error: Error) => resolve(`error: ${error.message}`));
  });
}

void describe('ssl-dh-param: real NGINX', () => {
  for (const dhParam of [FFDHE2048, null]) {
    void it(dhParam === null ? 'without parameters: no DHE cipher' : 'with the Secret\'s parameters: a DHE cipher of ssl-ciphers is agreed', async (t) => {
      const [httpPort, statusPort, httpsPort] = [await freePort(), await freePort(), await freePort()];
      const dataplane = findDataplane();
      const prefix = makePrefix();
      const built = site(dhParam);
      writeTlsSessionFiles(prefix, built.settings.tlsSession);
      const { conf } = renderConfig(built, { ...goldenOptions(dataplane, prefix), httpPort, httpsPort, statusPort });
      assert.equal(/\n {4}ssl_dhparam "[^"]+\/tls-session\/dhparam-[0-9a-f]{16}\.pem";\n/u.test(conf), dhParam !== null);
      const nginx = await startNginx(dataplane, prefix, conf, `http://127.0.0.1:${statusPort}/healthz`);
      t.after(() => nginx.stop());
      const agreed = await handshake(httpsPort, 'DHE-RSA-AES128-GCM-SHA256');
      if (dhParam === null) assert.match(agreed, /^error: /u);
      else assert.equal(agreed, 'TLS_DHE_RSA_WITH_AES_128_GCM_SHA256');
      assert.equal(await handshake(httpsPort, 'ECDHE-RSA-AES128-GCM-SHA256'), 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ECDHE needs no parameters');
      assert.doesNotMatch(nginx.errorLog(), /\[(error|crit|alert|emerg)\]/u);
    });
  }

  void it('parameters the model did not validate stop the render', () => {
    assert.throws(() => renderConfig(site('-----BEGIN DH PARAMETERS-----\nAAAA\n-----END DH PARAMETERS-----\n'), goldenOptions()), RenderError);
  });
});
