// The tcp/udp Helm values, checked with the controller's own entry grammar.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { streamValueNotes } from './helm-stream-values.ts';
import { readHelmValues } from './helm-values.ts';

void describe('streamValueNotes', () => {
  const rows: { name: string; values: unknown; want: RegExp[]; wantNot?: RegExp[] }[] = [
    { name: 'no tcp or udp: nothing to say', values: { controller: {} }, want: [], wantNot: [/tcp|udp/] },
    { name: 'empty maps: nothing to say', values: { tcp: {}, udp: {} }, want: [], wantNot: [/tcp|udp/] },
    {
      name: 'good entries are counted, a numeric port key and PROXY fields accepted',
      values: { tcp: { 5432: 'db/postgres:5432', 1883: 'iot/mqtt:mqtt:PROXY' } },
      want: [/^tcp: 2 of 2 TCP services served/],
    },
    {
      name: 'a bad entry is named with the controller\'s reason, the others still counted',
      values: { tcp: { 8080: 'web/app:80', 70000: 'web/app:80', 9000: 'no-namespace:80', 9001: 'ns/svc:80:SEND' } },
      want: [/^tcp\.9000 would be skipped .*<namespace>\/<name>/, /^tcp\.9001 would be skipped .*PROXY or empty/, /^tcp\.70000 would be skipped .*port number from 1 to 65535/, /^tcp: 1 of 4 TCP services served/],
    },
    { name: 'PROXY on UDP is ignored, said so', values: { udp: { 53: 'kube-system/dns:53:PROXY' } }, want: [/^udp\.53: PROXY means nothing on UDP/, /^udp: 1 of 1 UDP services served/] },
    { name: 'not a map: left out', values: { tcp: ['5432:db/pg:5432'] }, want: [/^tcp is left out: it must be a map/] },
    { name: 'a non-string value is refused as the controller would', values: { udp: { 53: { service: 'dns' } } }, want: [/^udp\.53 would be skipped .*must be a string/, /^udp: 0 of 1/] },
  ];
  for (const row of rows) {
    void it(row.name, () => {
      const notes = streamValueNotes(row.values);
      assert.equal(notes.length, row.want.length, notes.join('\n'));
      row.want.forEach((want, i) => assert.match(notes[i] ?? '', want));
      for (const not of row.wantNot ?? []) assert.ok(notes.every((note) => !not.test(note)), notes.join('\n'));
    });
  }

  void it('readHelmValues carries them in its notes', () => {
    const values = readHelmValues('tcp:\n  "5432": db/postgres:5432\n  "22": bad\n', 'values.yaml');
    assert.ok(values.notes.some((note) => /^tcp\.22 would be skipped/.test(note)), values.notes.join('\n'));
    assert.ok(values.notes.some((note) => /^tcp: 1 of 2 TCP services served/.test(note)), values.notes.join('\n'));
  });
});
