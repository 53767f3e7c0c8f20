import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createFailureReporter } from './failure-reporter.ts';
import type { Failure } from '../model/types.ts';

function capture() {
  const lines: { msg: string; reason?: string; level: number }[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  return { lines, logger: pino({ level: 'debug' }, stream) };
}

const bad: Failure = {
  ingress: { namespace: 'default', name: 'web' }, reason: 'InvalidAnnotation',
  field: 'metadata.annotations[nginx.ingress.kubernetes.io/proxy-body-size]', message: 'proxy-body-size "1x": not a size',
};
const conflict: Failure = { ingress: { namespace: 'default', name: 'new' }, reason: 'Conflict', field: 'spec.rules[0]', message: 'held by default/old' };

const rows: { name: string; rounds: Failure[][]; warnings: number; resolved: number }[] = [
  { name: 'a failure is logged once while it stands', rounds: [[bad], [bad], [bad]], warnings: 1, resolved: 0 },
  { name: 'a new failure beside an old one is logged', rounds: [[bad], [bad, conflict]], warnings: 2, resolved: 0 },
  { name: 'a fixed Ingress is logged as resolved, and again if it breaks again', rounds: [[bad], [], [bad]], warnings: 2, resolved: 1 },
  { name: 'no failures, no lines', rounds: [[], []], warnings: 0, resolved: 0 },
];

for (const row of rows) {
  test(`failure reporter: ${row.name}`, async () => {
    const { lines, logger } = capture();
    const handedOn: Failure[] = [];
    const reporter = createFailureReporter(logger, (f) => handedOn.push(f));
    for (const round of row.rounds) reporter.report(round);
    logger.flush();
    await new Promise((r) => setImmediate(r));
    assert.equal(lines.filter((l) => l.level === 40).length, row.warnings);
    assert.equal(lines.filter((l) => l.msg === 'resolved').length, row.resolved);
    assert.equal(handedOn.length, row.warnings, 'each logged failure is handed to onNew (the Event writer) once');
    assert.deepEqual(reporter.current(), row.rounds.at(-1));
  });
}
