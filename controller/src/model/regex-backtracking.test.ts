// The catastrophic-backtracking check's bounds: one check stops at its steps
// or its time, one Ingress's new regex paths share a budget, and a verdict is
// remembered per path string. The verdicts themselves are paths.test.ts rows.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { buildModel, createModelBuilder } from './build.ts';
import { ann, deepFreeze, ingress, options, path, rule, service, snapshot, svc } from './testdata/fixtures.ts';
import {
  checkBacktracking, newRegexCheckBudget, REGEX_CHECK_BUDGET_MS, REGEX_CHECK_TIMEOUT_MS,
} from './regex-backtracking.ts';

/** Generous slack for a shared, loaded machine: the bounds are what is asserted, not the speed. */
const SLACK_MS = 1500;

/** Distinct hostile paths: each makes the library run to its step or time bound. */
function hostilePaths(count: number, tag = 'h'): string[] {
  return Array.from({ length: count }, (_, index) => `/${tag}${index}/${'(a|b)'.repeat(40)}${'a?'.repeat(40)}x`);
}

function timed<T>(run: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = run();
  return { value, ms: performance.now() - started };
}

void describe('regex backtracking check: bounds', () => {
  void it('one hostile path stops at the step or time bound and is refused', () => {
    const [hostile = ''] = hostilePaths(1, 'one');
    const { value, ms } = timed(() => checkBacktracking(hostile, newRegexCheckBudget()));
    console.log(`one hostile path: ${ms.toFixed(0)} ms`);
    assert.equal(value.ok, false);
    assert.ok(ms < REGEX_CHECK_TIMEOUT_MS + SLACK_MS, `${ms} ms`);
  });

  void it('a verdict is remembered per path string: the second check is immediate and spends no budget', () => {
    // A verdict the library reaches (not a time-out, which is never remembered).
    const hostile = '/memo/(x|xy)*(a+)+$';
    const first = checkBacktracking(hostile, newRegexCheckBudget());
    assert.equal(first.ok, false);
    const budget = newRegexCheckBudget();
    const { value, ms } = timed(() => checkBacktracking(hostile, budget));
    assert.deepEqual(value, first);
    assert.ok(ms < 5, `${ms} ms`);
    assert.equal(budget.remainingMs, REGEX_CHECK_BUDGET_MS);
  });

  void it('an exhausted budget refuses without checking, and that refusal is not remembered', () => {
    const path = '/api/(v1|v2)/(.*)';
    const refused = checkBacktracking(path, { remainingMs: 0 });
    assert.equal(refused.ok, false);
    assert.match(refused.ok ? '' : refused.reason, /not checked: this Ingress's regex paths took over 2000 ms/u);
    assert.deepEqual(checkBacktracking(path, newRegexCheckBudget()), { ok: true, value: path });
  });

  void it('a pattern without alternatives and with one quantifier is accepted without the library', () => {
    const budget = newRegexCheckBudget();
    assert.deepEqual(checkBacktracking('/static/(.*)', budget), { ok: true, value: '/static/(.*)' });
    assert.equal(budget.remainingMs, REGEX_CHECK_BUDGET_MS);
  });

  void it('an Ingress of many hostile paths: the build stays within its budget, the paths past it are refused', () => {
    const paths = hostilePaths(40, 'budget').map((value) => path(value, svc('web', 80), 'ImplementationSpecific'));
    const hostile = ingress('hostile', { annotations: { [ann('use-regex')]: 'true' }, rules: [rule('hostile.example', ...paths)] });
    const other = ingress('other', { rules: [rule('other.example', path('/', svc('web', 80)))] });
    const { value: result, ms } = timed(() => buildModel(deepFreeze(snapshot({ ingresses: [hostile, other], services: [service('web', [{ port: 80 }])] })), options()));
    console.log(`40 hostile regex paths in one Ingress: build ${ms.toFixed(0)} ms`);
    assert.ok(ms < REGEX_CHECK_BUDGET_MS + REGEX_CHECK_TIMEOUT_MS + SLACK_MS, `${ms} ms`);
    const refusals = result.failures.filter((failure) => failure.ingress?.name === 'hostile' && (failure.reason === 'InvalidPath' || failure.reason === 'RegexNotChecked'));
    assert.equal(refusals.length, 40);
    assert.ok(refusals.some((failure) => failure.reason === 'RegexNotChecked' && /not checked: this Ingress's regex paths took over/u.test(failure.message)),
      'the budget ran out');
    assert.ok(result.model.servers.some((server) => server.hostname === 'other.example'), 'the other Ingress is served');
  });

  void it('a long-lived builder checks the paths left unchecked again when it builds again', () => {
    const paths = hostilePaths(40, 'again').map((value) => path(value, svc('web', 80), 'ImplementationSpecific'));
    const hostile = ingress('hostile', { annotations: { [ann('use-regex')]: 'true' }, rules: [rule('hostile.example', ...paths)] });
    const cluster = deepFreeze(snapshot({ ingresses: [hostile], services: [service('web', [{ port: 80 }])] }));
    const builder = createModelBuilder();
    // A fresh Ingress list (another Ingress changed): the builder translates again what it did not keep.
    const unchecked = (): number => builder.build({ ...cluster, ingresses: [...cluster.ingresses] }, options()).failures
      .filter((failure) => failure.reason === 'RegexNotChecked').length;
    const first = unchecked();
    const second = unchecked();
    console.log(`paths left unchecked: ${first}, then ${second}`);
    assert.ok(first > 0 && second < first, `${first} then ${second}`);
  });
});
