// ssl-session-ticket-key through real NGINX: two NGINX instances (two replicas,
// or one before and after a restart) given the same key resume each other's
// session tickets; with another key, or none, a ticket from one is a full
// handshake on the other. The session cache is off, so only the ticket can
// resume. The controller writes the key file (nginx/tls-session-files.ts)
// before NGINX reads it, as here.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { connect } from 'node:tls';
import { freePort } from '../../../lua/test/nginx-harness.ts';
import type { Model, TlsSessionSettings } from '../model/types.ts';
import { findDataplane } from '../nginx/dataplane.ts';
import { writeTlsSessionFiles } from '../nginx/tls-session-files.ts';
import { renderConfig } from './render-config.ts';
import { DEFAULT_SETTINGS, goldenOptions, model, notFound, server } from './testdata/model-fixtures.ts';
import { makePrefix, startNginx, type RunningNginx } from './testdata/nginx-runner.ts';

function site(ticketKey: string | null): Model {
  const tlsSession: TlsSessionSettings = { ...DEFAULT_SETTINGS.tlsSession, cache: false, tickets: true, ticketKey };
  return model([server('_', [notFound('/')])], [], { ...DEFAULT_SETTINGS, tlsSession });
}

/** An NGINX serving `ticketKey` (written where the conf names it, as the controller does); its HTTPS port. */
async function start(ticketKey: string | null): Promise<{ nginx: RunningNginx; port: number; conf: string }> {
  const [httpPort, statusPort, httpsPort] = [await freePort(), await freePort(), await freePort()];
  const dataplane = findDataplane();
  const prefix = makePrefix();
  const built = site(ticketKey);
  writeTlsSessionFiles(prefix, built.settings.tlsSession);
  const { conf } = renderConfig(built, { ...goldenOptions(dataplane, prefix), httpPort, httpsPort, statusPort });
  return { nginx: await startNginx(dataplane, prefix, conf, `http://127.0.0.1:${statusPort}/healthz`), port: httpsPort, conf };
}

/** A TLS 1.2 handshake offering `session`: whether it was resumed, and the session (ticket) NGINX gave. */
function handshake(port: number, session?: Buffer): Promise<{ reused: boolean; session: Buffer }> {
  return new Promise((resolve, reject) => {
    let ticket: Buffer | undefined;
    const socket = connect({ port, host: '127.0.0.1', servername: 'app.example.com', rejectUnauthorized: false, maxVersion: 'TLSv1.2', ...(session ? { session } : {}) });
    socket.setTimeout(5000, () => socket.destroy(new Error('no handshake in 5 s')));
    socket.once('session', (value: Buffer) => { ticket = value; });
    socket.once('secureConnect', () => {
      const reused = socket.isSessionReused();
      // The ticket of a full handshake arrives with it (TLS 1.2); a resumed one keeps the offered session.
      setImmediate(() => {
        socket.end();
        const given = ticket ?? session;
        if (given === undefined) reject(new Error('NGINX gave no session ticket'));
        else resolve({ reused, session: given });
      });
    });
    socket.once('error', reject);
  });
}

void describe('ssl-session-ticket-key: real NGINX', () => {
  void it('the same key on two NGINX: a ticket of one resumes on the other; another key or none: a full handshake', async (t) => {
    const key = randomBytes(80).toString('base64');
    const a = await start(key);
    t.after(() => a.nginx.stop());
    const b = await start(key);
    t.after(() => b.nginx.stop());
    const other = await start(randomBytes(48).toString('base64'));
    t.after(() => other.nginx.stop());
    const none = await start(null);
    t.after(() => none.nginx.stop());
    assert.match(a.conf, /\n {4}ssl_session_tickets on;\n {4}ssl_session_ticket_key "[^"]+\/tls-session\/ticket-[0-9a-f]{16}\.key";\n/u);
    assert.doesNotMatch(none.conf, /ssl_session_ticket_key/u);

    const first = await handshake(a.port);
    assert.equal(first.reused, false);
    assert.equal((await handshake(a.port, first.session)).reused, true, 'resumed on the NGINX that issued it');
    assert.equal((await handshake(b.port, first.session)).reused, true, 'resumed on another NGINX with the same key');
    assert.equal((await handshake(other.port, first.session)).reused, false, 'another key');
    assert.equal((await handshake(none.port, first.session)).reused, false, 'no key: NGINX\'s own');
    for (const running of [a, b, other, none]) assert.doesNotMatch(running.nginx.errorLog(), /\[(error|crit|alert|emerg)\]/u);
  });
});
