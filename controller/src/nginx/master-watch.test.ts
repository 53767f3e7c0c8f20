// Which NGINX lines end a reload wait early, and which are only collected.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { parseNginxLogLine } from './nginx-log.ts';
import { watchMaster } from './master-watch.ts';

const MASTER = 100;
const at = (level: string, pid: number, message: string): string => `2026/01/31 12:00:00 [${level}] ${pid}#${pid}: ${message}`;

const rows = [
  {
    name: 'a fatal emerg from the master refuses',
    lines: [at('notice', MASTER, 'reconfiguring'), at('emerg', MASTER, 'unknown directive "x"')],
    problems: ['[emerg] unknown directive "x"'],
    refused: true,
  },
  {
    name: 'bind() retries are collected but do not refuse',
    lines: [at('emerg', MASTER, 'bind() to 127.0.0.1:1 failed (98: Address already in use)'), at('notice', MASTER, 'try again to bind() after 500ms')],
    problems: ['[emerg] bind() to 127.0.0.1:1 failed (98: Address already in use)'],
    refused: false,
  },
  {
    name: '"still could not bind()" refuses, duplicates are dropped',
    lines: [
      at('emerg', MASTER, 'bind() to 127.0.0.1:1 failed (98: Address already in use)'),
      at('emerg', MASTER, 'bind() to 127.0.0.1:1 failed (98: Address already in use)'),
      at('emerg', MASTER, 'still could not bind()'),
    ],
    problems: ['[emerg] bind() to 127.0.0.1:1 failed (98: Address already in use)', '[emerg] still could not bind()'],
    refused: true,
  },
  {
    name: "a worker's request errors are ignored",
    lines: [at('error', 101, '*3 connect() failed'), at('emerg', 101, 'odd')],
    problems: [],
    refused: false,
  },
  {
    name: 'warnings are not problems',
    lines: [at('warn', MASTER, 'conflicting server name')],
    problems: [],
    refused: false,
  },
];

describe('watchMaster', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const watch = watchMaster(MASTER, 10);
      for (const line of row.lines) watch.onLine(parseNginxLogLine(line));
      await sleep(40);
      assert.deepEqual(watch.problems(), row.problems);
      assert.equal(watch.refused.aborted, row.refused);
      watch.close();
    });
  }

  it('does not refuse after close()', async () => {
    const watch = watchMaster(MASTER, 10);
    watch.onLine(parseNginxLogLine(at('emerg', MASTER, 'fatal')));
    watch.close();
    await sleep(40);
    assert.equal(watch.refused.aborted, false);
  });
});
