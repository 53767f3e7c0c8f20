// rewrite-target against the real `nginx -t`: every value the feature's parser
// takes compiles as NGINX's `rewrite` replacement (absolute URLs, variables,
// captures), and every value of ingress-nginx's grammar that the parser
// refuses is one NGINX refuses too. So "accepted" means "NGINX takes it",
// not only "our grammar takes it".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rewriteFeature } from '../model/features/rewrite.ts';
import type { RewriteConfig } from '../model/types.ts';
import { renderConfig } from './render-config.ts';
import { assertNginxAccepts } from './testdata/golden-check.ts';
import { backend, goldenOptions, model, proxied, server } from './testdata/model-fixtures.ts';

const ACCEPTED = [
  '/', '/$1', '$1', '/api/$2/$1?x=1', 'https://other.example/$1', 'http://other.example:8080/a/$2/$1',
  '$scheme://$host/new/$1', '/$host', '/$http_x_tenant/$1', '/$1abc', '/$10', 'foo', 'foo:bar', '/$request_uri',
  '/$arg_page/$cookie_session', '/$req_id', '/$http_', '/$HOST',
];
/** In ingress-nginx's grammar (it would render them), refused here because NGINX refuses them. */
const NGINX_REFUSES = ['/$0', '/a$', '/$/x', '/$$1', 'https://x/$zqx_unknown', '/$host1', '/$HOST_'];

const web = backend('default-web-80');
const targetKey = rewriteFeature.keys.find((key) => key.annotation?.name === 'rewrite-target');

/** What the feature's parser makes of `raw`: the target, or the refusal. */
function parse(raw: string): { target: string | null; unsupported: boolean } {
  assert.ok(targetKey !== undefined, 'rewrite-target is declared');
  const draft = { ...rewriteFeature.defaults } as { -readonly [K in keyof RewriteConfig]: RewriteConfig[K] };
  const refusal = targetKey.set(draft, raw);
  return { target: refusal === null ? draft.target : null, unsupported: refusal?.unsupported === true };
}

/** nginx.conf with one regex location per target, each on its own host. */
function confWith(targets: readonly string[]): string {
  const servers = targets.map((target, i) => server(`r${i}.test`, [
    proxied('/old/(.*)', 'regex', web.name, { host: `r${i}.test`, policy: { rewrite: { target, useRegex: false } } }),
  ]));
  return renderConfig(model(servers, [web]), goldenOptions()).conf;
}

void describe('rewrite-target: the parser agrees with nginx -t', () => {
  void it('every accepted value is printed and compiles', async () => {
    for (const raw of ACCEPTED) assert.equal(parse(raw).target, raw, `${raw} accepted`);
    const conf = confWith(ACCEPTED);
    for (const raw of ACCEPTED) assert.ok(conf.includes(`rewrite "(?i)/old/(.*)" "${raw}" break;`), `${raw} printed`);
    await assertNginxAccepts(conf);
  });

  for (const raw of NGINX_REFUSES) {
    void it(`${raw}: unsupported by the parser, refused by nginx -t`, async () => {
      assert.deepEqual(parse(raw), { target: null, unsupported: true });
      await assert.rejects(assertNginxAccepts(confWith([raw])), /nginx -t failed/u);
    });
  }
});
