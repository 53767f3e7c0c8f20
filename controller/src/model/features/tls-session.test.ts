// ssl-session-ticket-key (features/tls-session.ts): base64 of 48 or 80 bytes,
// the sizes NGINX's ssl_session_ticket_key reads; anything else keeps the
// default (NGINX's own keys) with a failure that never quotes the key.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { readConfigMap, testValueRows } from './testing.ts';
import { tlsSessionFeature } from './tls-session.ts';

const KEY_80 = randomBytes(80).toString('base64');
const KEY_48 = randomBytes(48).toString('base64');

void describe('ssl-session-ticket-key: values', () => testValueRows(tlsSessionFeature, [
  { name: '80 bytes (AES-256 tickets)', key: 'ssl-session-ticket-key', value: KEY_80, want: { ticketKey: KEY_80 } },
  { name: '48 bytes (AES-128 tickets)', key: 'ssl-session-ticket-key', value: KEY_48, want: { ticketKey: KEY_48 } },
  { name: 'surrounding spaces and a newline are trimmed', key: 'ssl-session-ticket-key', value: ` ${KEY_80}\n`, want: { ticketKey: KEY_80 } },
  { name: 'empty: NGINX\'s own keys', key: 'ssl-session-ticket-key', value: '', want: { ticketKey: null } },
  { name: '47 bytes', key: 'ssl-session-ticket-key', value: randomBytes(47).toString('base64'), want: 'fail' },
  { name: '81 bytes', key: 'ssl-session-ticket-key', value: randomBytes(81).toString('base64'), want: 'fail' },
  { name: '32 bytes', key: 'ssl-session-ticket-key', value: randomBytes(32).toString('base64'), want: 'fail' },
  { name: 'unpadded', key: 'ssl-session-ticket-key', value: KEY_80.replace(/=+$/u, ''), want: 'fail' },
  { name: 'base64url characters', key: 'ssl-session-ticket-key', value: KEY_48.replace(/^./u, '-'), want: 'fail' },
  { name: 'a space inside', key: 'ssl-session-ticket-key', value: `${KEY_80.slice(0, 40)} ${KEY_80.slice(40)}`, want: 'fail' },
  { name: 'a directive after it', key: 'ssl-session-ticket-key', value: `${KEY_48}; include /etc/passwd`, want: 'fail' },
  { name: 'a file path (the value is the key, not its file)', key: 'ssl-session-ticket-key', value: '/etc/ingress-controller/tickets.key', want: 'fail' },
]));

void describe('ssl-session-ticket-key: a refused key is never quoted', () => {
  for (const value of [randomBytes(47).toString('base64'), `${KEY_48}x`]) {
    void it(`${value.length} characters`, () => {
      const read = readConfigMap({ 'ssl-session-ticket-key': value });
      const failure = read.failures.find((item) => item.field.endsWith('data[ssl-session-ticket-key]'));
      assert.ok(failure !== undefined, 'refused');
      assert.match(failure.message, /value withheld: key material/u);
      assert.ok(!failure.message.includes(value.slice(0, 8)), failure.message);
      assert.equal(read.settings.tlsSession.ticketKey, null);
    });
  }
});
