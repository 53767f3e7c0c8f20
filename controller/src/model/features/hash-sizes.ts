// The sizes of NGINX's hash tables (ConfigMap only): variables, server names
// and maps. Render prints max(value, what the config needs): a table too small
// for the names it holds fails nginx -t, and with it every reload
// (render/http-tuning-view.ts).

import { accept, refuse, type Checked } from '../checked.ts';
import type { HashSizeSettings } from '../types.ts';
import { defineFeature, field } from './feature.ts';
import { atoi } from './values.ts';

/** NGINX refuses a bucket above 65536 minus a cache line. */
const MAX_BUCKET = 32_768n;
/** Bounds how long NGINX may search for a table size at each reload. */
const MAX_TABLE = 1_048_576n;

function sizeParser(min: bigint, max: bigint): (value: string) => Checked<number> {
  return (value) => {
    const size = atoi(value);
    if (size === null || size < min || size > max) return refuse(`expected an integer from ${min} to ${max}`);
    return accept(Number(size));
  };
}

const bucket = sizeParser(1n, MAX_BUCKET);
const table = sizeParser(1n, MAX_TABLE);

export const hashSizesFeature = defineFeature({
  name: 'hashSizes',
  title: 'Hash table sizes',
  doc: 'Sizes of NGINX\'s variables, server-names and map hash tables (ConfigMap only). A value below what this nginx.conf '
    + 'needs is raised to it: server names are sized from the hosts, as ingress-nginx does.',
  output: { kind: 'global' },
  defaults: { variablesBucketSize: 256, variablesMaxSize: 2048, serverNamesBucketSize: 0, serverNamesMaxSize: 1024, mapBucketSize: 64 },
  keys: [
    field<HashSizeSettings, 'variablesBucketSize'>('variablesBucketSize', bucket, {
      configKey: 'variables-hash-bucket-size', defaultText: '256', doc: 'variables_hash_bucket_size.',
      difference: 'below 64 (NGINX\'s default) prints 64',
    }),
    field<HashSizeSettings, 'variablesMaxSize'>('variablesMaxSize', table, {
      configKey: 'variables-hash-max-size', defaultText: '2048', doc: 'variables_hash_max_size.',
      difference: 'below 1024 (NGINX\'s default) prints 1024',
    }),
    field<HashSizeSettings, 'serverNamesBucketSize'>('serverNamesBucketSize', sizeParser(0n, MAX_BUCKET), {
      configKey: 'server-name-hash-bucket-size', defaultText: '0', doc: 'server_names_hash_bucket_size; at least what the longest host name needs (0: that).',
    }),
    field<HashSizeSettings, 'serverNamesMaxSize'>('serverNamesMaxSize', table, {
      configKey: 'server-name-hash-max-size', defaultText: '1024', doc: 'server_names_hash_max_size; at least what the number of hosts needs.',
    }),
    field<HashSizeSettings, 'mapBucketSize'>('mapBucketSize', bucket, {
      configKey: 'map-hash-bucket-size', defaultText: '64', doc: 'map_hash_bucket_size.',
      difference: 'below 64 (NGINX\'s default on x86-64) prints 64',
    }),
  ],
  proof: ['controller/src/model/features/http-tuning.test.ts', 'controller/src/render/http-tuning-render.test.ts'],
});
