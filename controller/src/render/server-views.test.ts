// A long-lived renderer reuses a server view's JSON when the next model hands
// over the same Location objects with the same backend labels. Held to two
// promises: its conf and version always equal a fresh render's, whatever
// came before; and it reuses exactly when the inputs are the same objects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Backend, Model } from '../model/types.ts';
import { buildConfigView } from './config-view.ts';
import { createConfigRenderer, renderConfig } from './render-config.ts';
import { resolveRenderOptions } from './render-options.ts';
import { jsonOfView, ServerViews } from './server-views.ts';
import { backend, DEFAULT_SETTINGS, goldenOptions, model, notFound, proxied, server } from './testdata/model-fixtures.ts';

const web = backend('default-web-80');
const api = backend('default-api-80');
// Location objects shared by the models below, as a long-lived model builder hands them over.
const shopRoot = proxied('/', 'prefix', web.name);
const shopApi = proxied('/api', 'prefix', api.name, { policy: { sslRedirect: { redirect: false, force: false } } });
const blogRoot = proxied('/', 'prefix', web.name);
const gone = notFound('/gone');

function site(locations = { shop: [shopRoot, shopApi], blog: [blogRoot, gone] }, backends: Backend[] = [web, api], settings = DEFAULT_SETTINGS): Model {
  return model([server('blog.example.com', locations.blog), server('shop.example.com', locations.shop)], backends, settings);
}

const rows: { name: string; models: Model[] }[] = [
  { name: 'the same model twice', models: [site(), site()] },
  { name: 'one location replaced by an edited copy', models: [site(), site({ shop: [shopRoot, { ...shopApi, policy: { ...shopApi.policy, proxy: { ...DEFAULT_SETTINGS.proxy, bodySize: '8m' } } }], blog: [blogRoot, gone] })] },
  { name: 'a backend starts balancing with EWMA (same locations)', models: [site(), site(undefined, [web, { ...api, loadBalance: 'ewma' }]), site()] },
  { name: 'a backend of another Service name (same locations)', models: [site(), site(undefined, [web, { ...api, service: 'api-v2' }])] },
  { name: 'the same locations in another order', models: [site(), site({ shop: [shopApi, shopRoot], blog: [blogRoot, gone] })] },
  { name: 'a server removed, then back', models: [site(), model([server('shop.example.com', [shopRoot, shopApi])], [web, api]), site()] },
  {
    // The same Location objects, whose blocks now differ: 8m was the default and becomes a location's own value.
    name: 'the ConfigMap\'s proxy defaults change (same locations): views are made again',
    models: [site(), site(undefined, undefined, { ...DEFAULT_SETTINGS, proxy: { ...DEFAULT_SETTINGS.proxy, bodySize: '8m', readTimeout: 30 } }), site()],
  },
  {
    name: 'the shared context changes (access log format): reused views are rendered again',
    models: [site(), site(undefined, undefined, { ...DEFAULT_SETTINGS, accessLog: { ...DEFAULT_SETTINGS.accessLog, format: '$status $request_time' } })],
  },
];

void describe('a long-lived renderer: every render equals a fresh one', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const renderer = createConfigRenderer(goldenOptions());
      row.models.forEach((m, i) => assert.deepEqual(renderer.render(m), renderConfig(m, goldenOptions()), `render ${i + 1}`));
    });
  }
});

/** Makes every server view of `m` once, as a render does; returns their JSON. */
function pass(views: ServerViews, m: Model): string[] {
  return [...buildConfigView(m, resolveRenderOptions(goldenOptions()), views).servers].map(jsonOfView);
}

void describe('ServerViews: reuses exactly what was made from the same objects', () => {
  void it('an unchanged server is reused, a changed one made again; the JSON is a fresh view\'s', () => {
    const views = new ServerViews();
    pass(views, site());
    assert.equal(views.reused, 0);
    const edited = site({ shop: [shopRoot, { ...shopApi, path: '/v2' }], blog: [blogRoot, gone] });
    const json = pass(views, edited);
    assert.equal(views.reused, 2, 'the catch-all and blog.example.com');
    assert.deepEqual(json, pass(new ServerViews(), edited));
  });

  void it('a reused view still builds its locations when a template reads them', () => {
    const views = new ServerViews();
    pass(views, site());
    const [, blog] = [...buildConfigView(site(), resolveRenderOptions(goldenOptions()), views).servers];
    assert.equal(blog?.hostname, 'blog.example.com');
    assert.deepEqual(blog?.locations.map((l) => l.path), ['/', '/gone', '/gone/']);
    assert.equal(JSON.stringify(blog), jsonOfView(blog!));
  });

  void it('an incomplete pass (a render that threw) leaves the last complete one in place', () => {
    const views = new ServerViews();
    pass(views, site());
    const broken = site(undefined, [web]); // shop's /api names a backend the model lacks
    assert.throws(() => pass(views, broken), /not in the model/u);
    const before = views.reused;
    pass(views, site());
    assert.equal(views.reused - before, 3, 'all three servers, from the complete pass before the broken one');
  });
});
