// The hash forms basic authentication checks (the same vectors lua/auth.test.ts
// verifies inside NGINX), and forms refused with their Secret.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDigestHash, passwordHashForm } from './password-hashes.ts';

const rows: { name: string; hash: string; form: string | null }[] = [
  { name: 'htpasswd -m', hash: '$apr1$8sFt66rZ$5f4dG6uJPUDcCdyvCGEji1', form: 'Apache MD5 (apr1)' },
  { name: 'apr1 with a short salt', hash: '$apr1$ab$omSBxwSV8ZyOXde7t2LWL.', form: 'Apache MD5 (apr1)' },
  { name: 'htpasswd -B ($2y$)', hash: '$2y$05$abcdefghijklmnopqrstuuLK7U1u6pVRmL7L1BBM2aS35PSZnDXlK', form: 'bcrypt' },
  { name: 'bcrypt $2b$', hash: '$2b$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a', form: 'bcrypt' },
  { name: 'htpasswd -s', hash: '{SHA}/vNB+F2HQ559kaLUZbmHHvZrXpg=', form: 'SHA-1' },
  { name: 'salted SHA-1', hash: '{SSHA}JVrhyTqab1YvH3vR2b1RYUumqqZzYWx0', form: 'salted SHA-1' },
  { name: 'htpasswd -p', hash: '{PLAIN}s3cret', form: 'plain' },
  { name: 'MD5-crypt', hash: '$1$saltsalt$RwMqRjSWhXMKbW72DwzGd1', form: 'MD5-crypt' },
  { name: 'SHA-512-crypt', hash: '$6$saltsalt$As4wrv0kZlfch1du9WeH7qhskyLriQWySXrZzynnvi46nFnNxjdpl6ksRegrrKexvhIa/Iny8S8uF3fVWTMuC1', form: 'SHA-crypt' },
  { name: 'SHA-256-crypt with rounds', hash: '$5$rounds=5000$saltsalt$' + 'a'.repeat(43), form: 'SHA-crypt' },
  { name: 'yescrypt', hash: '$y$j9T$abcdefghijklmnop$tySFNIfWVy.ymkBDHEMW6bAQ07dlkLVGalgni.VV4l8', form: 'yescrypt' },
  { name: 'htpasswd -d (DES)', hash: 'abhWCwoTZY2c6', form: 'DES crypt' },
  { name: 'an unknown scheme', hash: '{MD4}abc', form: null },
  { name: 'bcrypt cut short', hash: '$2y$05$abcdefghijklmnopqrstuu', form: null },
  { name: 'bcrypt with cost 99', hash: '$2y$99$abcdefghijklmnopqrstuuLK7U1u6pVRmL7L1BBM2aS35PSZnDXlK', form: null },
  { name: 'SHA-1 not base64', hash: '{SHA}not base64 at all!!!!!!!=', form: null },
  { name: 'plain with a control character', hash: '{PLAIN}a\u0001b', form: null },
  { name: 'a plain-text password (no scheme)', hash: 's3cret', form: null },
];

void describe('password hash forms', () => {
  for (const row of rows) {
    void it(`${row.name} → ${row.form ?? 'refused'}`, () => assert.equal(passwordHashForm(row.hash), row.form));
  }
  const digests: { name: string; hash: string; ok: boolean }[] = [
    { name: 'lower-case hex', hash: '48a8e8834a347180df42057998d4e2ba', ok: true },
    { name: 'upper-case hex', hash: '48A8E8834A347180DF42057998D4E2BA', ok: true },
    { name: '31 digits', hash: '48a8e8834a347180df42057998d4e2b', ok: false },
    { name: 'not hex', hash: 'z8a8e8834a347180df42057998d4e2ba', ok: false },
  ];
  for (const row of digests) void it(`digest HA1: ${row.name}`, () => assert.equal(isDigestHash(row.hash), row.ok));
});
