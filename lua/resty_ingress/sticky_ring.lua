-- A consistent-hash ring for balanced session affinity (sticky.lua): each
-- endpoint owns POINTS points of a 32-bit circle, a key belongs to the first
-- point at or after its hash. Adding an endpoint moves only the keys its new
-- points take (about 1/n of them), removing one moves only its own keys: the
-- resty.chash semantics ingress-nginx's sticky_balanced relies on.
-- A lookup must not loop: a loop on the request path is a trace of its own,
-- and the balancer's trace aborts on it ("inner loop in root trace"), leaving
-- every request to the interpreter (measured: +19,000 instructions per
-- request). So the circle is cut into a power of two of equal buckets, each
-- resolved when the ring is built to the owner of the first point at or after
-- its start: a lookup is one hash and one index. Still consistent: an added
-- endpoint only takes buckets, a removed one only gives its own away.
local ngx = ngx
local crc32 = ngx.crc32_long
local math_floor = math.floor
local table_sort = table.sort
local setmetatable = setmetatable

local POINTS = 160
-- A point is packed as hash * SLOTS + index, so the ring sorts as plain numbers
-- (below 2^53: exact in a double) and ties between endpoints break the same way everywhere.
local SLOTS = 65536
local CIRCLE = 4294967296
-- At least one bucket per point (up to 2^16: 100 endpoints take 16,384), at least 4,096.
local MIN_BUCKETS, MAX_BUCKETS = 4096, 65536

local _M = {}
local mt = { __index = _M }

-- endpoints: array of { key = "addr:port", ... } (balancer.lua), at most SLOTS - 1 of them.
function _M.new(endpoints)
    local packed = {}
    local n = 0
    for i = 1, #endpoints do
        local id = endpoints[i].key .. "#"
        for point = 1, POINTS do
            n = n + 1
            packed[n] = crc32(id .. point) * SLOTS + i
        end
    end
    table_sort(packed)
    local count = MIN_BUCKETS
    while count < n and count < MAX_BUCKETS do
        count = count * 2
    end
    local width = CIRCLE / count
    local buckets = {}
    local j = 1
    for b = 0, count - 1 do
        local start = b * width * SLOTS
        while j <= n and packed[j] < start do
            j = j + 1
        end
        local point = packed[j <= n and j or 1]
        buckets[b + 1] = point and endpoints[point % SLOTS] or nil
    end
    return setmetatable({ buckets = buckets, width = width, size = n }, mt)
end

-- The endpoint that owns `key` (a string), or nil when the ring is empty.
function _M.find(self, key)
    if self.size == 0 then
        return nil
    end
    return self.buckets[math_floor(crc32(key) / self.width) + 1]
end

return _M
