// The culprit search over a simulated NGINX: Ingresses are names, and a
// trial is refused when the configuration holds a bad one (or a bad pair, or
// always: a broken runtime). NGINX names the line of the first bad Ingress it
// meets, unless the row says the line belongs to nobody.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findCulprits, type Refused } from './culprit-search.ts';

interface World {
  /** Every Ingress in the configuration, oldest first; the changed ones are `changed` (default: all). */
  readonly ingresses: readonly string[];
  readonly changed?: readonly string[];
  /** Refused whenever one of these is in. */
  readonly bad?: readonly string[];
  /** Refused whenever both are in. */
  readonly badPair?: readonly [string, string];
  /** Refused whatever is left out (the runtime or the ConfigMap). */
  readonly broken?: boolean;
  /** Broken only for the first refusal (then repaired: the search's trials see it whole). */
  readonly repairedAtFirstTrial?: boolean;
  /** Broken from this trial on (0 = the first trial). */
  readonly breaksAtTrial?: number;
  /** NGINX's line belongs to the bad Ingress (true) or to nobody, e.g. http{} (false). */
  readonly lineOwned: boolean;
  readonly maxTrials?: number;
}

interface Row {
  readonly name: string;
  readonly world: World;
  readonly culprits: readonly string[];
  /** How the search ends; the sync leaves the culprits out only on `accepted` and `out-of-trials`. */
  readonly end: 'accepted' | 'out-of-trials' | 'unexplained';
  /** Trials the search may run: the bound the row proves. */
  readonly maxTrials: number;
}

const names = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);

/** What NGINX says about the configuration without `exclude` at trial `trial` (-1: the refusal that starts the search): null when it accepts it. */
function nginx(world: World, exclude: ReadonlySet<string>, trial = -1): Refused<string> | null {
  const kept = world.ingresses.filter((name) => !exclude.has(name));
  const bad = kept.filter((name) => world.bad?.includes(name));
  const pair = world.badPair && world.badPair.every((name) => kept.includes(name)) ? world.badPair[1] : null;
  const offender = bad[0] ?? pair;
  const broken = world.broken === true || (world.repairedAtFirstTrial === true && trial < 0) || (world.breaksAtTrial !== undefined && trial >= world.breaksAtTrial);
  if (broken) return { detail: 'dlopen() failed', owners: [] };
  if (offender === undefined || offender === null) return null;
  return { detail: `invalid value in ${offender}`, owners: world.lineOwned ? [offender] : [] };
}

const rows: readonly Row[] = [
  {
    name: 'the line NGINX names belongs to an Ingress: it alone is left out, one trial confirms',
    world: { ingresses: names('a', 8), bad: ['a0005'], lineOwned: true },
    culprits: ['a0005'], end: 'accepted', maxTrials: 1,
  },
  {
    name: 'two Ingresses NGINX refuses, each named by its line: one trial each',
    world: { ingresses: names('a', 8), bad: ['a0002', 'a0006'], lineOwned: true },
    culprits: ['a0002', 'a0006'], end: 'accepted', maxTrials: 2,
  },
  {
    name: 'a line owned by nobody: bisecting 8 changed Ingresses finds the one',
    world: { ingresses: names('a', 8), bad: ['a0003'], lineOwned: false },
    culprits: ['a0003'], end: 'accepted', maxTrials: 1 + 3 + 1,
  },
  {
    name: 'a line owned by nobody: bisecting 1,000 changed Ingresses stays logarithmic',
    world: { ingresses: names('a', 1000), bad: ['a0777'], lineOwned: false },
    culprits: ['a0777'], end: 'accepted', maxTrials: 1 + 10 + 1,
  },
  {
    name: 'the newest changed Ingress is the bad one: no bisection trial refused, so the whole configuration is tried again first',
    world: { ingresses: names('a', 8), bad: ['a0007'], lineOwned: false },
    culprits: ['a0007'], end: 'accepted', maxTrials: 1 + 3 + 1 + 1,
  },
  {
    name: 'only the changed Ingresses are suspects: the unchanged ones are never left out',
    world: { ingresses: names('a', 100), changed: ['a0010', 'a0050', 'a0090'], bad: ['a0050'], lineOwned: false },
    culprits: ['a0050'], end: 'accepted', maxTrials: 1 + 2 + 1,
  },
  {
    name: 'two bad Ingresses, no line: bisected one after the other',
    world: { ingresses: names('a', 16), bad: ['a0004', 'a0011'], lineOwned: false },
    culprits: ['a0004', 'a0011'], end: 'accepted', maxTrials: 2 * (1 + 4 + 1),
  },
  {
    name: 'two Ingresses refused only together: the newer one is left out',
    world: { ingresses: names('a', 8), badPair: ['a0001', 'a0006'], lineOwned: false },
    culprits: ['a0006'], end: 'accepted', maxTrials: 1 + 3 + 1,
  },
  {
    name: 'refused without any changed Ingress (the ConfigMap, the runtime): nobody is blamed',
    world: { ingresses: names('a', 8), broken: true, lineOwned: false },
    culprits: [], end: 'unexplained', maxTrials: 1,
  },
  {
    name: 'the bad Ingress did not change (its line names nobody): nobody is blamed',
    world: { ingresses: names('a', 8), changed: ['a0001', 'a0002'], bad: ['a0007'], lineOwned: false },
    culprits: [], end: 'unexplained', maxTrials: 1,
  },
  {
    name: 'nothing changed and the line names nobody: no trial at all',
    world: { ingresses: names('a', 8), changed: [], bad: ['a0007'], lineOwned: false },
    culprits: [], end: 'unexplained', maxTrials: 0,
  },
  {
    name: 'out of trials before the bisection ends: nothing is left out on a guess',
    world: { ingresses: names('a', 1000), bad: ['a0123'], lineOwned: false, maxTrials: 5 },
    culprits: [], end: 'out-of-trials', maxTrials: 5,
  },
  {
    name: 'out of trials after a culprit: the ones found are returned, not yet accepted',
    world: { ingresses: names('a', 8), bad: ['a0001', 'a0002', 'a0003'], lineOwned: true, maxTrials: 2 },
    culprits: ['a0001', 'a0002', 'a0003'], end: 'out-of-trials', maxTrials: 2,
  },
  {
    name: 'the runtime was broken for the first refusal only (repaired meanwhile): the one suspect is not blamed, the whole is accepted',
    world: { ingresses: ['a0000', 'a0001'], changed: ['a0001'], repairedAtFirstTrial: true, lineOwned: false },
    culprits: [], end: 'accepted', maxTrials: 2,
  },
  {
    name: 'the runtime breaks while the bisection runs: it ends unexplained, so the one it blamed is not left out',
    world: { ingresses: names('a', 8), bad: ['a0003'], breaksAtTrial: 1, lineOwned: false },
    culprits: ['a0000'], end: 'unexplained', maxTrials: 1 + 3 + 1 + 1,
  },
];

void describe('findCulprits', () => {
  for (const row of rows) {
    void it(row.name, async () => {
      const { world } = row;
      const first = nginx(world, new Set(), -1);
      assert.ok(first !== null, 'the row starts from a refused configuration');
      const excluded: ReadonlySet<string>[] = [];
      const result = await findCulprits<string>({
        refused: first,
        changed: world.changed ?? world.ingresses,
        maxTrials: world.maxTrials ?? 16,
        trial: async (exclude) => {
          excluded.push(exclude);
          return nginx(world, exclude, excluded.length - 1);
        },
      });
      assert.deepEqual(result.culprits.map((c) => c.ingress), row.culprits);
      assert.equal(result.end, row.end);
      assert.equal(result.trials, excluded.length, 'every trial is counted');
      assert.ok(result.trials <= row.maxTrials, `${result.trials} trials, at most ${row.maxTrials}`);
      if (row.end === 'accepted') {
        const now = excluded.length; // NGINX as it is after the search
        assert.equal(nginx(world, new Set(row.culprits), now), null, 'NGINX accepts the configuration without the culprits');
        // No innocent Ingress is blamed: leaving out any one culprit less is refused.
        for (const culprit of row.culprits) assert.notEqual(nginx(world, new Set(row.culprits.filter((c) => c !== culprit)), now), null);
      }
      if (row.end !== 'unexplained') for (const culprit of result.culprits) assert.match(culprit.detail, /invalid value/, 'the culprit carries NGINX\'s words');
    });
  }

  void it('a culprit found by its line says so; one found by bisecting says that', async () => {
    const world: World = { ingresses: names('a', 4), bad: ['a0001'], lineOwned: false };
    const result = await findCulprits<string>({
      refused: { detail: 'x', owners: ['a0003'] }, changed: world.ingresses, maxTrials: 16,
      trial: async (exclude) => nginx(world, exclude),
    });
    assert.deepEqual(result.culprits.map((c) => [c.ingress, c.found]), [['a0003', 'line'], ['a0001', 'bisect']]);
  });
});
