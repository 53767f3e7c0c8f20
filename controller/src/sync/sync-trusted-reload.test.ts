// The sync with skipNginxTestWhenTrusted: a change built from validated values
// reloads with no `nginx -t` (none ahead, none before the HUP); a change that
// brings a snippet NGINX has not accepted yet is validated ahead and reloaded
// with `nginx -t`; NGINX's first start validates only a model with a snippet.
// Without the option every start and reload validates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { DEFAULT_SETTINGS } from '../model/features/parse.ts';
import type { Model, SnippetsConfig } from '../model/types.ts';
import { createSync, type DataplaneControl } from './sync.ts';

const NO_SNIPPETS: SnippetsConfig = { configuration: [], server: [], auth: [], main: [], http: [], everyServer: [], everyLocation: [] };

/** One host with `paths`; the path `/snippet` carries a configuration-snippet. */
function model(paths: readonly string[]): Model {
  return {
    servers: [{
      hostname: 'app.test',
      locations: paths.map((path) => ({
        path, match: 'prefix', route: { kind: 'not-found' }, ingress: { namespace: 'default', name: 'app' },
        policy: path === '/snippet' ? { snippets: { ...NO_SNIPPETS, configuration: ['add_header X-A "a";'] } } : {},
      })),
    }],
    backends: [], tls: { certificates: [], hosts: [], defaultCertificate: null }, settings: DEFAULT_SETTINGS, routes: [],
  };
}

/** A data plane recording `start|reload <version> validate=<bool>` and `ahead <version>`. */
function recordingDataplane(): DataplaneControl & { log: string[] } {
  let started = false;
  const log: string[] = [];
  return {
    log,
    started: () => started,
    async start(_conf, version, options) { started = true; log.push(`start ${version} validate=${String(options?.validate ?? true)}`); },
    async reload(_conf, version, options) { log.push(`reload ${version} validate=${String(options?.validate ?? true)}`); },
    async validateAhead(_conf, version) { log.push(`ahead ${version}`); },
    async pushBackends() { /* nothing to record */ },
    async pushCertificates() { /* nothing to record */ },
    async pushRoutes() { /* nothing to record */ },
  };
}

async function reloadsFor(skip: boolean | undefined, steps: readonly (readonly string[])[], first: readonly string[] = ['/']): Promise<string[]> {
  const dp = recordingDataplane();
  let state = model(first);
  const sync = createSync({
    steps: {
      snapshot: () => ({ ingresses: [], ingressClasses: [], services: [], endpointSlices: [], secrets: [], configMaps: [] }),
      build: () => ({ model: state, failures: [] }),
      render: (m) => ({ conf: 'conf', version: m.servers[0]?.locations.map((l) => l.path).join('+') ?? '' }),
    },
    dataplane: dp, logger: pino({ level: 'silent' }), minIntervalMs: 0, reloadSettleMs: 20,
    ...(skip === undefined ? {} : { skipNginxTestWhenTrusted: skip }),
  });
  sync.kick();
  await sync.idle();
  for (const paths of steps) {
    state = model(paths);
    sync.kick();
    await sync.idle();
  }
  await sync.stop();
  return dp.log;
}

const rows: readonly { name: string; skip: boolean | undefined; first?: readonly string[]; steps: readonly (readonly string[])[]; log: readonly string[] }[] = [
  {
    name: 'by default the start and every reload validate', skip: undefined, steps: [['/', '/a']],
    log: ['start / validate=true', 'ahead /+/a', 'reload /+/a validate=true'],
  },
  {
    name: 'trusted: NGINX starts on plain paths and reloads a new plain path without nginx -t', skip: true, steps: [['/', '/a']],
    log: ['start / validate=false', 'reload /+/a validate=false'],
  },
  {
    name: 'trusted: a start with a snippet is validated; a plain change beside it then is not', skip: true, first: ['/', '/snippet'],
    steps: [['/', '/snippet', '/b']],
    log: ['start /+/snippet validate=true', 'reload /+/snippet+/b validate=false'],
  },
  {
    name: 'trusted: a new snippet is validated; once live, a plain change beside it is not', skip: true,
    steps: [['/', '/snippet'], ['/', '/snippet', '/b']],
    log: ['start / validate=false', 'ahead /+/snippet', 'reload /+/snippet validate=true', 'reload /+/snippet+/b validate=false'],
  },
];

describe('sync: nginx -t only where a change needs it', () => {
  for (const row of rows) {
    it(row.name, async () => {
      assert.deepEqual(await reloadsFor(row.skip, row.steps, row.first), row.log);
    });
  }
});
