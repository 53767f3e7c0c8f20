// Parsing and forwarding NGINX's stderr lines: levels, pids, shapes.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { nginxProblems } from './nginx-errors.ts';
import { forwardNginxLog, parseNginxLogLine, type NginxLogLine } from './nginx-log.ts';
import { recordingLogger } from './nginx-test-support.ts';

const parseRows: { name: string; line: string; expect: NginxLogLine }[] = [
  {
    name: 'emerg from the master',
    line: '2026/01/31 12:00:00 [emerg] 42#42: bind() to 127.0.0.1:80 failed (98: Address already in use)',
    expect: { level: 'error', nginxLevel: 'emerg', pid: 42, message: 'bind() to 127.0.0.1:80 failed (98: Address already in use)' },
  },
  {
    name: 'error from a worker, with its connection number',
    line: '2026/01/31 12:00:00 [error] 43#43: *7 open() "/x" failed',
    expect: { level: 'error', nginxLevel: 'error', pid: 43, message: '*7 open() "/x" failed' },
  },
  {
    name: 'warn stays warn',
    line: '2026/01/31 12:00:00 [warn] 42#42: conflicting server name "a" on 0.0.0.0:80, ignored',
    expect: { level: 'warn', nginxLevel: 'warn', pid: 42, message: 'conflicting server name "a" on 0.0.0.0:80, ignored' },
  },
  {
    name: 'notice is info',
    line: '2026/01/31 12:00:00 [notice] 42#42: start worker processes',
    expect: { level: 'info', nginxLevel: 'notice', pid: 42, message: 'start worker processes' },
  },
  {
    name: 'crit is error',
    line: '2026/01/31 12:00:00 [crit] 1#1: something',
    expect: { level: 'error', nginxLevel: 'crit', pid: 1, message: 'something' },
  },
  {
    name: 'early form before the log is open',
    line: 'nginx: [alert] could not open error log file',
    expect: { level: 'error', nginxLevel: 'alert', pid: null, message: 'could not open error log file' },
  },
  {
    name: 'a line without a level',
    line: 'nginx: configuration file /x/nginx.conf test failed',
    expect: { level: 'info', nginxLevel: null, pid: null, message: 'nginx: configuration file /x/nginx.conf test failed' },
  },
];

describe('parseNginxLogLine', () => {
  for (const row of parseRows) {
    it(row.name, () => assert.deepEqual(parseNginxLogLine(row.line), row.expect));
  }
});

describe('nginxProblems', () => {
  const rows = [
    {
      name: 'keeps emerg, drops notice and the summary line',
      output: '2026/01/31 12:00:00 [notice] 1#1: x\n2026/01/31 12:00:00 [emerg] 1#1: unknown directive "a" in /c:3\nnginx: configuration file /c test failed\n',
      expect: ['[emerg] unknown directive "a" in /c:3'],
    },
    { name: 'keeps the early form', output: 'nginx: [emerg] open() "/c" failed', expect: ['[emerg] open() "/c" failed'] },
    { name: 'nothing to report', output: 'nginx: the configuration file /c syntax is ok\n', expect: [] },
  ];
  for (const row of rows) {
    it(row.name, () => assert.deepEqual(nginxProblems(row.output), row.expect));
  }
});

describe('forwardNginxLog', () => {
  it('logs each line at its level and hands it on', async () => {
    const { logger, lines } = recordingLogger();
    const stream = new PassThrough();
    const seen: NginxLogLine[] = [];
    const done = forwardNginxLog(stream, logger, (line) => seen.push(line));
    stream.end(
      '2026/01/31 12:00:00 [emerg] 9#9: broken\n\n2026/01/31 12:00:00 [warn] 9#9: careful\n2026/01/31 12:00:00 [notice] 9#9: fine\n',
    );
    await done;
    // pino levels: 30 info, 40 warn, 50 error
    assert.deepEqual(
      lines.map((line) => [line.level, line.msg, line.pid, line.nginxLevel]),
      [
        [50, 'broken', 9, 'emerg'],
        [40, 'careful', 9, 'warn'],
        [30, 'fine', 9, 'notice'],
      ],
    );
    assert.equal(seen.length, 3, 'the blank line is skipped');
  });
});
