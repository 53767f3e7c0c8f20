// What liveness and readiness decide, without a server: readiness waits for
// the first configuration and, when the admission webhook is on, for the
// webhook to serve; liveness never looks at the webhook.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createHealthChecks, type HealthSources } from './health-checks.ts';

interface Row {
  readonly name: string;
  readonly firstLive: boolean;
  /** undefined: the webhook is off (no source). */
  readonly webhook: boolean | undefined;
  readonly live: string | null;
  readonly ready: string | null;
}

const NOT_LIVE = 'the first configuration is not live yet';
const NO_WEBHOOK = 'the admission webhook is not serving yet';

const rows: readonly Row[] = [
  { name: 'webhook off, first configuration live', firstLive: true, webhook: undefined, live: null, ready: null },
  { name: 'webhook off, first configuration not live', firstLive: false, webhook: undefined, live: null, ready: NOT_LIVE },
  { name: 'webhook on and serving, first configuration live', firstLive: true, webhook: true, live: null, ready: null },
  { name: 'webhook on, not serving yet, first configuration live', firstLive: true, webhook: false, live: null, ready: NO_WEBHOOK },
  { name: 'webhook serving before the first configuration is live', firstLive: false, webhook: true, live: null, ready: NOT_LIVE },
  { name: 'neither yet', firstLive: false, webhook: false, live: null, ready: NOT_LIVE },
];

function checksFor(row: Pick<Row, 'firstLive' | 'webhook'>): ReturnType<typeof createHealthChecks> {
  const sources: HealthSources = {
    nginxPid: () => process.pid,
    luaVersion: () => Promise.resolve(1),
    firstConfigLive: () => row.firstLive,
    ...(row.webhook === undefined ? {} : { webhookServing: () => row.webhook === true }),
  };
  return createHealthChecks(sources);
}

void describe('health checks: readiness and the admission webhook', () => {
  for (const row of rows) {
    void it(row.name, async () => {
      const checks = checksFor(row);
      assert.equal(await checks.live(), row.live, 'liveness');
      assert.equal(await checks.ready(), row.ready, 'readiness');
    });
  }

  void it('turns ready the moment the webhook serves, and shutdown still fails both', async () => {
    let serving = false;
    const checks = createHealthChecks({
      nginxPid: () => process.pid, luaVersion: () => Promise.resolve(1), firstConfigLive: () => true, webhookServing: () => serving,
    });
    assert.equal(await checks.ready(), NO_WEBHOOK);
    serving = true;
    assert.equal(await checks.ready(), null);
    checks.beginShutdown();
    assert.equal(await checks.ready(), 'shutting down');
    assert.equal(await checks.live(), 'shutting down');
  });
});
