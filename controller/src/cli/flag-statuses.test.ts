// The flag statuses (model/features/flag-statuses.ts) against the command line
// that applies them: "supported" is exactly what the controller parses, and
// every ingress-nginx flag has one status.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FLAG_STATUSES } from '../model/features/flag-statuses.ts';
import { INGRESS_NGINX_FLAGS } from '../model/features/ingress-nginx-flags.ts';
import { hasFlag } from './options.ts';

/** The ingress-nginx flags commander parses (--version is commander's own option). */
const parsedByCommander = (name: string): boolean => name === 'version' || hasFlag(name);

void describe('flag statuses', () => {
  void it('every ingress-nginx flag has a status, and only they do', () => {
    assert.deepEqual(Object.keys(FLAG_STATUSES).sort(), INGRESS_NGINX_FLAGS.map((flag) => flag.name).sort());
  });

  for (const flag of INGRESS_NGINX_FLAGS) {
    const status = FLAG_STATUSES[flag.name];
    const kind = status?.kind ?? 'none';
    // --v is the one supported flag commander does not parse: ingress-nginx-args.ts turns it into a log level.
    const expectParsed = (kind === 'supported' || kind === 'different') && flag.name !== 'v';
    void it(`--${flag.name} is ${kind}: ${expectParsed ? 'the command line parses it' : 'the command line has no flag of that name'}`, () => {
      assert.equal(parsedByCommander(flag.name), expectParsed);
    });
  }
});
