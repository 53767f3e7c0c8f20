-- Consistent hashing (ingress-nginx's upstream-hash-by: its "chash" and,
-- with a subset size, "chashsubset" balancers), in pure Lua: there is no
-- lua-resty-balancer C library in the data plane. A ring of points (ketama
-- style: POINTS per member, each at crc32("<member id>#<j>")), sorted once per
-- backend sync. The hash space is cut into a fixed number of buckets, each
-- knowing the first point at or after its start: a request's key (crc32 of
-- upstream-hash-by evaluated) picks its bucket with a shift, so the request
-- path has no loop (a binary search's loop aborted the balancer's LuaJIT
-- trace). Removing one member of n removes only its points: only the buckets
-- whose first point was one of them move (~1/n of the keys), every other key
-- keeps its member. The number of buckets must not follow n (it would move
-- other keys too): 16384 up to 1,600 members, whose ring has 16,000 points
-- at most (bucketing adds little to the unevenness the points' random gaps
-- already give); 65536 past that. Members
-- are the endpoints, or (subset mode) subsets of subset-size endpoints in
-- the backend's order, the last one padded with the first endpoints as
-- ingress-nginx pads it: the key picks a subset, then a random member of it,
-- as ingress-nginx's chashsubset does.
-- The key template is parsed once per sync into variable names and literal
-- text: a request reads the variables and concatenates, nothing is compiled.
local ngx = ngx
local crc32 = ngx.crc32_short
local var = ngx.var
local setmetatable = setmetatable
local type = type
local tonumber = tonumber
local tostring = tostring
local math_floor = math.floor
local math_max = math.max
local math_ceil = math.ceil
local math_random = math.random
local bit_rshift = bit.rshift
local ffi = require("ffi")
local ffi_new = ffi.new
local table_sort = table.sort
local concat = table.concat
local str_find = string.find
local str_sub = string.sub

-- Points per member, and about at most this many in a ring: a backend of more
-- than 100 members gets fewer per member (halved per band: 80 up to 200, 40 up
-- to 400, at least 10), since each worker builds and sorts the ring on every
-- sync of the backend. Within a band a removal moves only the removed member's
-- keys; crossing a band's edge moves more.
local POINTS = 160
local MAX_POINTS = 16000
local MIN_POINTS = 10
-- Buckets (and the shift of a 32-bit hash to a bucket number), by band.
local BUCKETS, BUCKET_SHIFT = 16384, 18
local MANY_BUCKETS, MANY_BUCKET_SHIFT = 65536, 16
local HASH_SPACE = 4294967296
local BUCKET_TYPE = "int32_t[?]"
-- Members are numbered in the low bits of a point while sorting.
local MEMBER_BITS = 65536
local MAX_KEY_LENGTH = 256
local MAX_SUBSET_SIZE = 1000

local _M = {}
local mt = { __index = _M }

-- The key template ("$request_uri", "${host}-x", "$http_x_user$arg_id") as
-- parts: variable names (a string, or a number for a capture "$1") and
-- literal text, in order; or nil and why not. The grammar is the controller's
-- (features/upstream-hash.ts): `$name` or `${name}` with name of
-- [A-Za-z0-9_], text of [A-Za-z0-9_-]; nothing else.
function _M.parse_key(by)
    if type(by) ~= "string" or #by == 0 or #by > MAX_KEY_LENGTH then
        return nil, "must be 1.." .. MAX_KEY_LENGTH .. " characters"
    end
    local parts, is_var = {}, {}
    local at = 1
    while at <= #by do
        local name, stop
        local _, braced_end, braced = str_find(by, "^%${([%w_]+)}", at)
        if braced then
            name, stop = braced, braced_end
        else
            local _, plain_end, plain = str_find(by, "^%$([%w_]+)", at)
            name, stop = plain, plain_end
        end
        if name then
            parts[#parts + 1] = tonumber(name) or name
            is_var[#parts] = true
        else
            local _, text_end = str_find(by, "^[%w_%-]+", at)
            if not text_end then
                return nil, "unexpected " .. str_sub(by, at, at) .. " at " .. at
                            .. " (only $name, ${name} and text of [A-Za-z0-9_-])"
            end
            stop = text_end
            parts[#parts + 1] = str_sub(by, at, text_end)
            is_var[#parts] = false
        end
        at = stop + 1
    end
    return parts, is_var
end

-- The hash field of a pushed backend: null, or { by, subsetSize } with
-- subsetSize null or an integer 1..MAX_SUBSET_SIZE. Returns its canonical
-- JSON, or nil and a reason (where: the field's path).
function _M.check(hash, where)
    if hash == nil or type(hash) == "userdata" then -- absent or cjson.null
        return "null"
    end
    if type(hash) ~= "table" then
        return nil, where .. ": must be null or an object {by, subsetSize}"
    end
    local parts, err = _M.parse_key(hash.by)
    if not parts then
        return nil, where .. ".by: " .. err
    end
    local size = hash.subsetSize
    if size == nil or type(size) == "userdata" then
        return '{"by":"' .. hash.by .. '","subsetSize":null}'
    end
    if type(size) ~= "number" or size ~= math_floor(size) or size < 1 or size > MAX_SUBSET_SIZE then
        return nil, where .. ".subsetSize: must be null or an integer 1.." .. MAX_SUBSET_SIZE
    end
    return '{"by":"' .. hash.by .. '","subsetSize":' .. tostring(size) .. '}'
end

-- The ring over `ids` (one string per member): sorted point hashes and the
-- member of each.
local function build_ring(ids)
    local count = #ids
    local per_member = POINTS
    while per_member > MIN_POINTS and per_member * count > MAX_POINTS do
        per_member = math_max(MIN_POINTS, math_floor(per_member / 2))
    end
    local buckets, shift = BUCKETS, BUCKET_SHIFT
    if per_member == MIN_POINTS and MIN_POINTS * count > MAX_POINTS then
        buckets, shift = MANY_BUCKETS, MANY_BUCKET_SHIFT
    end
    local encoded = {}
    for member = 1, count do
        local prefix = ids[member] .. "#"
        for j = 1, per_member do
            -- The member in the low bits: one sort orders by hash, then by member.
            encoded[#encoded + 1] = crc32(prefix .. j) * MEMBER_BITS + (member - 1)
        end
    end
    table_sort(encoded)
    local points, owners = {}, {}
    for i = 1, #encoded do
        local member = encoded[i] % MEMBER_BITS
        owners[i] = member + 1
        points[i] = (encoded[i] - member) / MEMBER_BITS
    end
    -- For each bucket (from 0), the index of the first point at or after its
    -- start; the first point when none is (the ring wraps).
    local count_points = #points
    local width = HASH_SPACE / buckets
    local first = ffi_new(BUCKET_TYPE, buckets)
    local p = 1
    for b = 0, buckets - 1 do
        local start = b * width
        while p <= count_points and points[p] < start do
            p = p + 1
        end
        first[b] = p <= count_points and p or 1
    end
    return points, owners, first, shift
end

-- ingress-nginx's subsets: ceil(n / size) of them, the endpoints in order,
-- the last one filled up with the first endpoints again.
local function build_subsets(endpoints, size)
    local count = #endpoints
    local subsets, ids = {}, {}
    local total = math_ceil(count / size)
    local k = 0
    for s = 1, total do
        local subset = {}
        for m = 1, size do
            subset[m] = endpoints[k % count + 1]
            k = k + 1
        end
        subsets[s] = subset
        ids[s] = "set" .. s
    end
    return subsets, ids
end

-- endpoints: array of { address, port, key, needle } (balancer.lua), at least
-- one; hash: { by, subsetSize } as check() accepts it. Returns the picker, or
-- nil and an error.
function _M.new(endpoints, hash)
    local parts, is_var = _M.parse_key(hash.by)
    if not parts then
        return nil, is_var
    end
    local size = type(hash.subsetSize) == "number" and hash.subsetSize or nil
    local subsets, ids
    if size then
        subsets, ids = build_subsets(endpoints, size)
    else
        ids = {}
        for i = 1, #endpoints do
            ids[i] = endpoints[i].key
        end
    end
    if #ids == 0 then
        return nil, "no endpoints"
    end
    local points, owners, first, shift = build_ring(ids)
    local single = #parts == 1 and is_var[1] and parts[1] or nil
    return setmetatable({
        endpoints = endpoints,
        count = #endpoints,
        parts = parts,
        is_var = is_var,
        part_count = #parts,
        single = single,
        buffer = {},
        subsets = subsets,
        points = points,
        owners = owners,
        point_count = #points,
        first = first,
        shift = shift,
    }, mt)
end

-- The request's key: the template with its variables read (an unset one is "").
local function request_key(self)
    local single = self.single
    if single then
        return var[single] or ""
    end
    local parts, is_var, buffer = self.parts, self.is_var, self.buffer
    local n = self.part_count
    for i = 1, n do
        local part = parts[i]
        if is_var[i] then
            buffer[i] = var[part] or ""
        else
            buffer[i] = part
        end
    end
    return concat(buffer, "", 1, n)
end
_M.request_key = request_key

-- The ring position (a point's index) of hash `h`: its bucket's first point.
local function point_of(self, h)
    return self.first[bit_rshift(h, self.shift)]
end

-- The member (index into endpoints, or into subsets) for `key`.
function _M.member_of(self, key)
    return self.owners[point_of(self, crc32(key))]
end

function _M.find(self)
    local member = self.owners[point_of(self, crc32(request_key(self)))]
    local subsets = self.subsets
    if subsets then
        local subset = subsets[member]
        return subset[math_random(#subset)]
    end
    return self.endpoints[member]
end

-- A retry: another endpoint than those in `tried` (" addr:port " needles,
-- balancer.lua): a member of the key's subset not tried yet, else the next
-- members along the ring, so a retry goes where the key would go were the
-- failed endpoint gone. All tried: the key's own endpoint.
function _M.find_other(self, tried)
    local owners, count = self.owners, self.point_count
    local start = point_of(self, crc32(request_key(self)))
    local subsets = self.subsets
    for step = 0, count - 1 do
        local member = owners[(start + step - 1) % count + 1]
        if subsets then
            local subset = subsets[member]
            local size = #subset
            local first = math_random(size)
            for m = 0, size - 1 do
                local endpoint = subset[(first + m - 1) % size + 1]
                if not str_find(tried, endpoint.needle, 1, true) then
                    return endpoint
                end
            end
        else
            local endpoint = self.endpoints[member]
            if not str_find(tried, endpoint.needle, 1, true) then
                return endpoint
            end
        end
    end
    return _M.find(self)
end

-- Hashing learns nothing from responses or failures.
function _M.feedback()
end

function _M.failed()
end

return _M
