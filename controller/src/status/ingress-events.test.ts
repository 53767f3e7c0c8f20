import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { V1Ingress } from '@kubernetes/client-node';
import { buildModel } from '../model/build.ts';
import { DEFAULT_OPTIONS, ingress, path, rule, service, snapshot, svc } from '../model/testdata/fixtures.ts';
import type { Model } from '../model/types.ts';
import type { EventRecorder, EventTarget, EventType } from './event-recorder.ts';
import { createIngressEvents, type IngressEvents } from './ingress-events.ts';

/** An Ingress with a uid and generation, as the informer gives it. */
function stamped(name: string, host: string, generation = 1): V1Ingress {
  const base = ingress(name, { rules: [rule(host, path('/', svc('web', 80)))] });
  return { ...base, metadata: { ...base.metadata, uid: `uid-${name}`, generation } };
}

function setup(live: (model: Model) => boolean = () => true, syncEvents = true): {
  events: IngressEvents; recorded: string[]; build: (ingresses: V1Ingress[]) => Model;
} {
  const recorded: string[] = [];
  const recorder: EventRecorder = {
    record: (target: EventTarget, type: EventType, reason: string, message: string) => {
      recorded.push(`${target.name}(${target.uid}) ${type} ${reason}: ${message}`);
    },
    flush: async () => {},
    stats: () => ({ created: 0, bumped: 0, dropped: 0 }),
  };
  const events = createIngressEvents({ recorder, syncEvents, isLive: live });
  const build = (ingresses: V1Ingress[]): Model => {
    const cluster = snapshot({ ingresses, services: [service('web', [{ port: 80 }])] });
    const result = buildModel(cluster, DEFAULT_OPTIONS);
    events.built(result.model, cluster);
    for (const failure of result.failures) events.failure(failure);
    return result.model;
  };
  return { events, recorded, build };
}

void describe('ingress events', () => {
  void it('a conflict is a Warning on the loser, with its uid, naming the winner', () => {
    const { recorded, build } = setup();
    build([stamped('old', 'a.example.com'), { ...stamped('new', 'a.example.com'), metadata: { ...stamped('new', 'a.example.com').metadata, creationTimestamp: new Date('2025-01-01T00:00:00Z') } }]);
    const conflicts = recorded.filter((line) => line.includes('Conflict'));
    assert.equal(conflicts.length, 1, recorded.join('\n'));
    assert.match(conflicts[0], /^new\(uid-new\) Warning Conflict: .*default\/old/);
  });

  void it('Sync once per generation when the configuration is live', () => {
    const { events, recorded, build } = setup();
    events.reloaded(build([stamped('web', 'a.example.com', 1)]));
    events.synced(); // same generation again: no second event
    build([stamped('web', 'a.example.com', 2)]);
    events.synced();
    assert.deepEqual(recorded, [
      'web(uid-web) Normal Sync: Configuration is live in NGINX',
      'web(uid-web) Normal Sync: Configuration is live in NGINX',
    ]);
  });

  void it('a build from the same Ingress objects (an endpoint change) asks isLive no more, and a new generation still does', () => {
    let asked = 0;
    const { events, recorded } = setup(() => { asked += 1; return true; });
    const cluster = snapshot({ ingresses: [stamped('web', 'a.example.com', 1)], services: [service('web', [{ port: 80 }])] });
    const sync = (from: typeof cluster): void => {
      events.built(buildModel(from, DEFAULT_OPTIONS).model, from);
      events.synced();
    };
    sync(cluster);
    sync({ ...cluster, endpointSlices: [] }); // the same Ingresses array, as the store keeps it
    sync({ ...cluster, endpointSlices: [] });
    assert.equal(asked, 1, 'nothing new to announce: no model comparison');
    sync({ ...cluster, ingresses: [stamped('web', 'a.example.com', 2)] });
    assert.equal(asked, 2);
    assert.deepEqual(recorded, [
      'web(uid-web) Normal Sync: Configuration is live in NGINX',
      'web(uid-web) Normal Sync: Configuration is live in NGINX',
    ]);
  });

  void it('a model with the same servers array (a builder reuses it for an endpoint change) is not walked again', () => {
    const { events } = setup();
    const cluster = snapshot({ ingresses: [stamped('web', 'a.example.com', 1)], services: [service('web', [{ port: 80 }])] });
    const model = buildModel(cluster, DEFAULT_OPTIONS).model;
    let walks = 0;
    const counted = (list: Model['servers']): Model['servers'] => new Proxy(list, {
      get: (target, key, receiver): unknown => {
        if (key === Symbol.iterator) walks += 1;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const servers = counted(model.servers);
    events.built({ ...model, servers }, cluster);
    events.built({ ...model, servers, backends: [] }, { ...cluster, endpointSlices: [] });
    assert.equal(walks, 1);
    events.built({ ...model, servers: counted(model.servers.slice()) }, { ...cluster, endpointSlices: [] });
    assert.equal(walks, 2, 'a new servers array is read again');
  });

  void it('no Sync while the built model is not live yet', () => {
    const { events, recorded, build } = setup(() => false);
    build([stamped('web', 'a.example.com')]);
    events.synced();
    assert.deepEqual(recorded, []);
  });

  void it('--disable-sync-events keeps Sync events away', () => {
    const { events, recorded, build } = setup(() => true, false);
    events.reloaded(build([stamped('web', 'a.example.com')]));
    assert.deepEqual(recorded, []);
  });

  void it('a bad log-format-upstream in the controller\'s ConfigMap is a Warning on that ConfigMap', () => {
    const recorded: string[] = [];
    const recorder: EventRecorder = {
      record: (target, type, reason, message) => { recorded.push(`${target.kind} ${target.namespace}/${target.name}(${target.uid}) ${type} ${reason}: ${message}`); },
      flush: async () => {},
      stats: () => ({ created: 0, bumped: 0, dropped: 0 }),
    };
    const events = createIngressEvents({ recorder, syncEvents: false, isLive: () => true, configMap: 'ingress/resty' });
    const configMap = { metadata: { namespace: 'ingress', name: 'resty', uid: 'uid-cm' }, data: { 'log-format-upstream': '$status $location_path' } };
    const cluster = snapshot({ configMaps: [configMap] });
    const result = buildModel(cluster, { ...DEFAULT_OPTIONS, configMap: 'ingress/resty' });
    events.built(result.model, cluster);
    for (const failure of result.failures) events.failure(failure);
    assert.equal(recorded.length, 1, recorded.join('\n'));
    assert.match(recorded[0], /^ConfigMap ingress\/resty\(uid-cm\) Warning InvalidConfigMapValue: ConfigMap key log-format-upstream: variable \$location_path/);
  });

  void it('a bad TCP services entry is a Warning on the TCP services ConfigMap, not on the controller\'s', () => {
    const recorded: string[] = [];
    const recorder: EventRecorder = {
      record: (target, type, reason, message) => { recorded.push(`${target.kind} ${target.namespace}/${target.name}(${target.uid}) ${type} ${reason}: ${message}`); },
      flush: async () => {},
      stats: () => ({ created: 0, bumped: 0, dropped: 0 }),
    };
    const events = createIngressEvents({ recorder, syncEvents: false, isLive: () => true, configMap: 'ingress/resty' });
    const own = { metadata: { namespace: 'ingress', name: 'resty', uid: 'uid-cm' }, data: {} };
    const tcp = { metadata: { namespace: 'ingress', name: 'tcp', uid: 'uid-tcp' }, data: { '9000': 'default/echo' } };
    const cluster = snapshot({ configMaps: [own, tcp] });
    const result = buildModel(cluster, { ...DEFAULT_OPTIONS, configMap: 'ingress/resty', tcpServicesConfigMap: 'ingress/tcp' });
    events.built(result.model, cluster);
    for (const failure of result.failures) events.failure(failure);
    assert.equal(recorded.length, 1, recorded.join('\n'));
    assert.match(recorded[0], /^ConfigMap ingress\/tcp\(uid-tcp\) Warning InvalidStreamService: TCP service "9000" is not served/);
  });

  void it('a failed reload warns the Ingresses that changed since the live configuration, with NGINX\'s text', () => {
    const { events, recorded, build } = setup();
    events.reloaded(build([stamped('a', 'a.example.com'), stamped('b', 'b.example.com')]));
    recorded.length = 0;
    const failed = build([stamped('a', 'a.example.com'), stamped('b', 'b.example.com', 2)]);
    events.reloadFailed('[emerg] unknown directive "bogus"', failed);
    assert.deepEqual(recorded, ['b(uid-b) Warning ReloadFailed: NGINX refused the configuration; the last good one keeps serving: [emerg] unknown directive "bogus"']);
  });
});
