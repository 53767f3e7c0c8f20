// Server blocks are reused only when nothing they are rendered from changed;
// the whole nginx.conf stays byte-identical to a fresh render (checked on the
// golden models through the real templates). Only a kept render becomes the
// cache, as slices of the string its texts were assembled into.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Model } from '../model/types.ts';
import type { ConfigView, ServerView } from './config-view.ts';
import { createConfigRenderer } from './render-config.ts';
import { createServerBlocks, type RenderServer, type ServerBlocks } from './server-blocks.ts';
import { backend, goldenOptions, model, proxied, server } from './testdata/model-fixtures.ts';

const serverView = (hostname: string, path = '/'): ServerView =>
  ({ hostname, isDefault: hostname === '_', locations: [{ path }] }) as unknown as ServerView;
const view = (servers: ServerView[], port = 8080): ConfigView =>
  ({ options: { httpPort: port }, serverNamesHash: { maxSize: servers.length }, servers }) as unknown as ConfigView;

/** A fake server template that records which hosts it rendered. */
function recorder(): { rendered: string[]; render: RenderServer } {
  const rendered: string[] = [];
  return {
    rendered,
    render: (context) => {
      const { server } = context;
      rendered.push(server.hostname);
      return `server ${server.hostname} ${JSON.stringify(server.locations)} port ${JSON.stringify(context.options)}\n`;
    },
  };
}

const a = serverView('a.test');
const b = serverView('b.test');
const c = serverView('c.test');
const rows: { name: string; first: ConfigView; second: ConfigView; rerendered: string[] }[] = [
  { name: 'same view: nothing re-rendered', first: view([a, b]), second: view([a, b]), rerendered: [] },
  { name: 'one server added: only it', first: view([a, b]), second: view([a, b, c]), rerendered: ['c.test'] },
  { name: 'one server changed: only it', first: view([a, b]), second: view([a, serverView('b.test', '/api')]), rerendered: ['b.test'] },
  { name: 'one server removed: nothing', first: view([a, b, c]), second: view([a, c]), rerendered: [] },
  { name: 'shared context changed: every server', first: view([a, b]), second: view([a, b], 9090), rerendered: ['a.test', 'b.test'] },
];

/** Renders `view` and keeps it, assembled as a conf would be: a header, the blocks, a footer. */
function renderAndKeep(blocks: ServerBlocks, view: ConfigView): { texts: readonly string[]; keys: readonly string[]; source: string } {
  const rendered = blocks.render(view);
  const header = '# header\n';
  const source = `${header}${rendered.texts.join('')}# footer\n`;
  rendered.keep(source, header.length);
  return { texts: rendered.texts, keys: rendered.keys, source };
}

void describe('server blocks', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const fake = recorder();
      const blocks = createServerBlocks(fake.render);
      renderAndKeep(blocks, row.first);
      fake.rendered.length = 0;
      const second = renderAndKeep(blocks, row.second);
      assert.deepEqual(fake.rendered, row.rerendered);
      const fresh = createServerBlocks(recorder().render).render(row.second);
      assert.deepEqual(second.texts, fresh.texts, 'reused texts equal a fresh render');
      assert.deepEqual(second.keys, fresh.keys);
    });
  }

  void it('a render that is not kept does not become the cache', () => {
    const fake = recorder();
    const blocks = createServerBlocks(fake.render);
    renderAndKeep(blocks, view([a]));
    blocks.render(view([a, b])); // e.g. assembling the conf failed
    fake.rendered.length = 0;
    renderAndKeep(blocks, view([a, b]));
    assert.deepEqual(fake.rendered, ['b.test']);
  });

  void it('kept texts are read back from the source they were kept in', () => {
    const blocks = createServerBlocks(recorder().render);
    const first = blocks.render(view([a, b]));
    // A source whose pieces differ from the rendered texts shows where reused texts come from.
    const header = '# header\n';
    first.keep(`${header}${first.texts.map((text) => text.toUpperCase()).join('')}# footer\n`, header.length);
    assert.deepEqual(blocks.render(view([a, b])).texts, first.texts.map((text) => text.toUpperCase()));
  });

  void it('a render that throws keeps the blocks of the previous one', () => {
    const fake = recorder();
    let fail = false;
    const blocks = createServerBlocks((context) => {
      if (fail && context.server.hostname === 'c.test') throw new Error('bad value');
      return fake.render(context);
    });
    renderAndKeep(blocks, view([a, b]));
    fail = true;
    assert.throws(() => blocks.render(view([a, b, c])), /bad value/);
    fake.rendered.length = 0;
    blocks.render(view([a, b]));
    assert.deepEqual(fake.rendered, []);
  });

  void it('the real renderer: a second render after a change equals a fresh renderer\'s output', () => {
    const before: Model = model([server('app.example.com', [proxied('/', 'prefix', 'default-app-80')])], [backend('default-app-80')]);
    const after: Model = model(
      [server('app.example.com', [proxied('/', 'prefix', 'default-app-80')]), server('api.example.com', [proxied('/v1', 'prefix', 'default-app-80')])],
      [backend('default-app-80')],
    );
    const renderer = createConfigRenderer(goldenOptions());
    renderer.render(before);
    assert.deepEqual(renderer.render(after), createConfigRenderer(goldenOptions()).render(after));
    assert.notEqual(renderer.render(after).version, renderer.render(before).version);
  });
});
