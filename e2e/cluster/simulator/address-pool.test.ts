import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AddressPoolError, createAddressPool, parseLoopbackRange } from './address-pool.ts';

void describe('parseLoopbackRange', () => {
  const good = [
    { label: '/24 skips .0 and .255', cidr: '127.0.1.0/24', count: 254, first: '127.0.1.1', last: '127.0.1.254' },
    { label: 'base inside the range is aligned down', cidr: '127.0.2.77/24', count: 254, first: '127.0.2.1', last: '127.0.2.254' },
    { label: '/30', cidr: '127.3.0.4/30', count: 4, first: '127.3.0.4', last: '127.3.0.7' },
    { label: '/23 spans two third octets', cidr: '127.5.0.0/23', count: 508, first: '127.5.0.1', last: '127.5.1.254' },
  ];
  for (const row of good) {
    void it(row.label, () => {
      const addresses = parseLoopbackRange(row.cidr);
      assert.deepEqual([addresses.length, addresses[0], addresses.at(-1)], [row.count, row.first, row.last]);
    });
  }
  const bad = [
    { label: 'not loopback', cidr: '10.0.0.0/24', message: /inside 127\.0\.0\.0\/8/ },
    { label: 'prefix too wide', cidr: '127.0.0.0/8', message: /prefix/ },
    { label: 'no prefix', cidr: '127.0.1.0', message: /must look like/ },
    { label: 'bad octet', cidr: '127.0.300.0/24', message: /not an IPv4 address/ },
    { label: 'only a .255 address', cidr: '127.0.0.255/32', message: /no usable address/ },
  ];
  for (const row of bad) {
    void it(`rejects ${row.label}`, () => {
      assert.throws(() => parseLoopbackRange(row.cidr), (err: unknown) => err instanceof AddressPoolError && row.message.test(err.message));
    });
  }
});

void describe('createAddressPool', () => {
  void it('hands out distinct addresses, fresh ones before freed ones, then runs out', () => {
    const pool = createAddressPool('127.9.0.0/30');
    const first = [pool.allocate(), pool.allocate()];
    assert.deepEqual(first, ['127.9.0.1', '127.9.0.2']);
    pool.release('127.9.0.1');
    assert.equal(pool.allocate(), '127.9.0.3', 'a fresh address comes before a freed one');
    assert.equal(pool.allocate(), '127.9.0.1', 'then the freed one is recycled');
    assert.equal(pool.allocate(), null);
    assert.equal(pool.inUse(), 3);
  });

  void it('ignores releasing an address it did not hand out', () => {
    const pool = createAddressPool('127.9.0.0/30');
    pool.release('127.9.0.1');
    pool.release('127.200.0.1');
    assert.deepEqual([pool.allocate(), pool.inUse()], ['127.9.0.1', 1]);
  });
});
