// Addresses and ranges of allow/deny lists: what Go's net.ParseCIDR / ParseIP
// take (ingress-nginx's internal/net/ipnet.go) in the spelling Go prints and
// NGINX reads, and nothing else.

import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { MAX_LIST_ITEMS, parseAddressList, parseAddressOrRange } from './ip-ranges.ts';

const one: { name: string; text: string; want: string | 'refuse' | 'unsupported' }[] = [
  { name: 'IPv4 address', text: '10.0.0.1', want: '10.0.0.1' },
  { name: 'IPv4 range', text: '10.0.0.0/8', want: '10.0.0.0/8' },
  { name: 'IPv4 range with host bits (Go clears them)', text: '10.1.2.3/8', want: '10.0.0.0/8' },
  { name: 'IPv4 /32', text: '127.0.0.1/32', want: '127.0.0.1/32' },
  { name: 'IPv4 /0', text: '1.2.3.4/0', want: '0.0.0.0/0' },
  { name: 'IPv4 /31 keeps its last bit cleared', text: '192.168.1.7/31', want: '192.168.1.6/31' },
  { name: 'IPv6 address, compressed', text: '2001:0db8:0000:0000:0000:0000:0000:0001', want: '2001:db8::1' },
  { name: 'IPv6 loopback', text: '::1', want: '::1' },
  { name: 'IPv6 any', text: '::', want: '::' },
  { name: 'IPv6 upper case', text: '2001:DB8::A', want: '2001:db8::a' },
  { name: 'IPv6 range', text: '2001:db8::/32', want: '2001:db8::/32' },
  { name: 'IPv6 range with host bits', text: '2001:db8:1:2::5/48', want: '2001:db8:1::/48' },
  { name: 'IPv6 longest zero run compressed', text: '1:0:0:2:0:0:0:3', want: '1:0:0:2::3' },
  { name: 'IPv6 first of two equal zero runs', text: '1:0:0:2:3:0:0:4', want: '1::2:3:0:0:4' },
  { name: 'IPv6 a single zero group is not compressed', text: '1:2:3:4:5:6:0:8', want: '1:2:3:4:5:6:0:8' },
  { name: 'IPv6 with an IPv4 tail', text: '64:ff9b::192.0.2.1', want: '64:ff9b::c000:201' },
  { name: 'IPv4-mapped address, printed as IPv4 (as Go)', text: '::ffff:10.0.0.1', want: '10.0.0.1' },
  { name: 'IPv4-mapped range becomes the IPv4 range NGINX checks mapped clients against', text: '::ffff:10.0.0.0/104', want: '10.0.0.0/8' },
  { name: 'IPv4-mapped range shorter than 96 bits', text: '::ffff:10.0.0.0/64', want: 'unsupported' },
  { name: 'IPv4 with a leading zero (Go refuses it too)', text: '010.0.0.1', want: 'refuse' },
  { name: 'IPv4 out of range', text: '256.0.0.1', want: 'refuse' },
  { name: 'IPv4 prefix past 32', text: '10.0.0.0/33', want: 'refuse' },
  { name: 'IPv6 prefix past 128', text: '::/129', want: 'refuse' },
  { name: 'prefix with a leading zero', text: '10.0.0.0/08', want: 'refuse' },
  { name: 'negative prefix', text: '10.0.0.0/-1', want: 'refuse' },
  { name: 'empty prefix', text: '10.0.0.0/', want: 'refuse' },
  { name: 'two slashes', text: '10.0.0.0/8/8', want: 'refuse' },
  { name: 'IPv6 zone', text: 'fe80::1%eth0', want: 'refuse' },
  { name: 'IPv6 with two ::', text: '1::2::3', want: 'refuse' },
  { name: 'a host name', text: 'example.com', want: 'refuse' },
  { name: 'the word all (NGINX would take it)', text: 'all', want: 'refuse' },
  { name: 'a directive smuggled after the range', text: '10.0.0.0/8; allow all', want: 'refuse' },
  { name: 'a space inside', text: '10.0.0.0 /8', want: 'refuse' },
  { name: 'empty', text: '', want: 'refuse' },
];

void describe('parseAddressOrRange', () => {
  for (const row of one) {
    void it(row.name, () => {
      const got = parseAddressOrRange(row.text);
      if (row.want === 'refuse' || row.want === 'unsupported') {
        assert.equal(got.ok, false);
        if (!got.ok) assert.equal(got.unsupported === true, row.want === 'unsupported', got.reason);
        return;
      }
      assert.deepEqual(got, { ok: true, value: row.want });
    });
  }
});

const lists: { name: string; raw: string; dropEmpty?: boolean; want: readonly string[] | 'refuse' | 'unsupported' }[] = [
  { name: 'one range', raw: '10.0.0.0/8', want: ['10.0.0.0/8'] },
  { name: 'sorted and without repeats (as ingress-nginx sorts them)', raw: '192.168.0.0/16,10.0.0.0/8,10.1.0.0/8', want: ['10.0.0.0/8', '192.168.0.0/16'] },
  { name: 'spaces and tabs around items (Go TrimSpace)', raw: ' 10.0.0.0/8 ,\t::1 ', want: ['10.0.0.0/8', '::1'] },
  { name: 'addresses and ranges of both families', raw: '127.0.0.1, ::1, 2001:db8::/32', want: ['127.0.0.1', '2001:db8::/32', '::1'] },
  { name: 'a trailing comma is an empty item: refused', raw: '10.0.0.0/8,', want: 'refuse' },
  { name: 'one bad item refuses the list', raw: '10.0.0.0/8, nope', want: 'refuse' },
  { name: 'empty items dropped (the ConfigMap reading)', raw: '10.0.0.0/8,, ,::1,', dropEmpty: true, want: ['10.0.0.0/8', '::1'] },
  { name: 'nothing left is an empty list (the ConfigMap reading)', raw: ' , ', dropEmpty: true, want: [] },
  { name: 'too many items', raw: Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, i) => `10.${i >> 8}.${i & 255}.1`).join(','), want: 'unsupported' },
];

void describe('parseAddressList', () => {
  for (const row of lists) {
    void it(row.name, () => {
      const got = parseAddressList(row.raw, row.dropEmpty);
      if (row.want === 'refuse' || row.want === 'unsupported') {
        assert.equal(got.ok, false);
        if (!got.ok) assert.equal(got.unsupported === true, row.want === 'unsupported', got.reason);
        return;
      }
      assert.deepEqual(got, { ok: true, value: row.want });
    });
  }
});
