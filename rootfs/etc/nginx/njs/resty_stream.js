// TCP/UDP services without reloads (docs/tcp-udp-services.md): the endpoints of
// each stream listener live in a shared dict the controller feeds through a
// unix socket, and `js_set $resty_stream_peer` picks one per connection for
// `proxy_pass $resty_stream_peer`. Runs in njs 0.8 (Debian trixie): no for...of.
//
// Zones (stream.njk): resty_stream_peers (string) "<PROTOCOL>/<port>" -> "<peer> <peer> ...",
// "#version" -> the last feed's version; resty_stream_counters (number) round-robin turns
// and per-listener connection and byte counters; resty_stream_down (number, timeout 10s)
// peers whose connect failed recently, skipped while another peer is left.
//
// Every njs session runs in its own copy of the VM: module variables do not live from one
// connection to the next, so whatever must (the round-robin turn) is in a shared dict.

/* global ngx */

// What a listener without endpoints connects to: refused at once, the client sees a close.
var NO_PEER = '127.0.0.1:1';
var VERSION_KEY = '#version';
var MAX_PEERS = 4096;
var MAX_KEYS = 100000;

var KEY = /^(TCP|UDP)\/([1-9][0-9]{0,4})$/;
var VERSION = /^[1-9][0-9]{0,15}$/;
var IPV4 = /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;
var HEXTET = /^[0-9a-fA-F]{1,4}$/;
var PORT = /^[1-9][0-9]{0,4}$/;

function listenerKey(s) {
    return s.variables.protocol + '/' + s.variables.server_port;
}

// js_set $resty_stream_peer: the next peer of this listener in round robin, skipping
// peers whose connect failed in the last 10 s while another one is left.
function pick(s) {
    var key = listenerKey(s);
    var set = ngx.shared.resty_stream_peers.get(key);
    if (!set) {
        return NO_PEER;
    }
    var peers = set.split(' ');
    var count = peers.length;
    var turn = ngx.shared.resty_stream_counters.incr('turn:' + key, 1, 0);
    var down = ngx.shared.resty_stream_down;
    for (var i = 0; i < count; i++) {
        var peer = peers[(turn + i) % count];
        if (!down.has(peer)) {
            return peer;
        }
    }
    return peers[turn % count];
}

// js_set $resty_stream_observe, read by the listeners' access_log `if=` at the end of each
// session: counts it and its bytes, remembers a peer NGINX could not connect to (status 502).
// Returns "" so nothing is written.
function observe(s) {
    var v = s.variables;
    var key = listenerKey(s);
    var counters = ngx.shared.resty_stream_counters;
    counters.incr('conns:' + key, 1, 0);
    counters.incr('rx:' + key, Number(v.bytes_received) || 0, 0);
    counters.incr('tx:' + key, Number(v.bytes_sent) || 0, 0);
    var peer = v.upstream_addr;
    if (v.status === '502' && peer && peer !== NO_PEER && peer.indexOf(',') < 0) {
        counters.incr('failed:' + key, 1, 0);
        ngx.shared.resty_stream_down.set(peer, 1);
    }
    return '';
}

function validPort(text) {
    return PORT.test(text) && Number(text) <= 65535;
}

function validIPv6(text) {
    if (text.length < 2 || text.length > 45) {
        return false;
    }
    var halves = text.split('::');
    if (halves.length > 2) {
        return false;
    }
    var groups = 0;
    for (var h = 0; h < halves.length; h++) {
        if (halves[h] === '') {
            continue;
        }
        var parts = halves[h].split(':');
        for (var i = 0; i < parts.length; i++) {
            var last = h === halves.length - 1 && i === parts.length - 1;
            if (last && parts[i].indexOf('.') >= 0 && IPV4.test(parts[i])) {
                groups += 2;
            } else if (HEXTET.test(parts[i])) {
                groups += 1;
            } else {
                return false;
            }
        }
    }
    return halves.length === 2 ? groups <= 7 : groups === 8;
}

// `a.b.c.d:port` or `[v6]:port`, nothing else: the value goes to proxy_pass, where a name
// would be an upstream or a host to resolve and `unix:` a local socket.
function validPeer(text) {
    if (text.charAt(0) === '[') {
        var close = text.indexOf(']:');
        return close > 0 && validIPv6(text.slice(1, close)) && validPort(text.slice(close + 2));
    }
    var colon = text.indexOf(':');
    return colon > 0 && IPV4.test(text.slice(0, colon)) && validPort(text.slice(colon + 1));
}

// A feed body: `set <version>` then one line per listener `<PROTOCOL>/<port>[ <peer>...]`.
// Returns {version, sets: [[key, value]]} or {error}.
function parseSet(lines) {
    var version = lines[0].slice(4);
    if (!VERSION.test(version)) {
        return { error: 'bad version' };
    }
    var seen = {};
    var sets = [];
    for (var i = 1; i < lines.length; i++) {
        if (lines[i] === '') {
            continue;
        }
        var words = lines[i].split(' ');
        var key = words[0];
        var match = KEY.exec(key);
        if (!match || Number(match[2]) > 65535) {
            return { error: 'bad listener on line ' + (i + 1) };
        }
        if (seen[key]) {
            return { error: 'listener ' + key + ' twice' };
        }
        seen[key] = true;
        if (words.length - 1 > MAX_PEERS) {
            return { error: 'too many peers for ' + key };
        }
        for (var w = 1; w < words.length; w++) {
            if (!validPeer(words[w])) {
                return { error: 'bad peer for ' + key + ' on line ' + (i + 1) };
            }
        }
        sets.push([key, words.slice(1).join(' ')]);
    }
    if (sets.length > MAX_KEYS) {
        return { error: 'too many listeners' };
    }
    return { version: version, sets: sets, keys: seen };
}

// Stores a checked set: every listener's peers, then drops listeners it does not name.
function apply(parsed) {
    var dict = ngx.shared.resty_stream_peers;
    for (var i = 0; i < parsed.sets.length; i++) {
        if (parsed.sets[i][1] === '') {
            dict.delete(parsed.sets[i][0]);
        } else {
            dict.set(parsed.sets[i][0], parsed.sets[i][1]);
        }
    }
    var held = dict.keys(MAX_KEYS + 1);
    for (var k = 0; k < held.length; k++) {
        if (held[k] !== VERSION_KEY && !parsed.keys[held[k]]) {
            dict.delete(held[k]);
        }
    }
    dict.set(VERSION_KEY, parsed.version);
}

// `stats`: the version held, then `<listener> <connections> <bytes in> <bytes out> <failed>` lines.
function stats() {
    var peers = ngx.shared.resty_stream_peers;
    var counters = ngx.shared.resty_stream_counters;
    var out = 'version ' + (peers.get(VERSION_KEY) || '0') + '\n';
    var names = counters.keys(MAX_KEYS);
    names.sort();
    for (var i = 0; i < names.length; i++) {
        if (names[i].slice(0, 6) !== 'conns:') {
            continue;
        }
        var key = names[i].slice(6);
        out += key + ' ' + counters.get(names[i]) + ' ' + (counters.get('rx:' + key) || 0) + ' '
            + (counters.get('tx:' + key) || 0) + ' ' + (counters.get('failed:' + key) || 0) + '\n';
    }
    return out;
}

function answer(body) {
    var lines = body.split('\n');
    if (lines[0] === 'stats') {
        return stats();
    }
    if (lines[0].slice(0, 4) !== 'set ') {
        return 'error unknown command\n';
    }
    var parsed = parseSet(lines);
    if (parsed.error) {
        return 'error ' + parsed.error + '\n';
    }
    try {
        apply(parsed);
    } catch (e) {
        return 'error not stored: ' + String(e.message).slice(0, 120) + '\n';
    }
    return 'ok ' + parsed.version + '\n';
}

// js_preread of the feed listener (a unix socket only the workers' user reaches): reads one
// request ending in an empty line, answers through $resty_stream_reply (`return`).
function feed(s) {
    var body = '';
    s.on('upload', function (data, flags) {
        body += data;
        var end = body.indexOf('\n\n');
        if (end < 0 && !flags.last) {
            return;
        }
        var reply;
        if (end < 0) {
            reply = 'error incomplete request\n';
        } else {
            reply = answer(body.slice(0, end));
        }
        if (reply.charAt(0) === 'e') {
            s.warn('resty_stream feed refused: ' + reply.slice(6, 200).trim());
        }
        s.variables.resty_stream_reply = reply;
        s.done();
    });
}

export default { pick, observe, feed };
