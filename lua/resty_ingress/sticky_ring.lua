-- A consistent-hash ring for balanced session affinity (sticky.lua): each
-- endpoint owns POINTS points of a 32-bit circle, a key belongs to the first
-- point at or after its hash. Adding an endpoint moves only the keys its new
-- points take (about 1/n of them), removing one moves only its own keys: the
-- resty.chash semantics ingress-nginx's sticky_balanced relies on.
local ngx = ngx
local crc32 = ngx.crc32_long
local math_floor = math.floor
local table_sort = table.sort
local setmetatable = setmetatable

local POINTS = 160
-- A point is packed as hash * SLOTS + index, so the ring sorts as plain numbers
-- (below 2^53: exact in a double) and ties between endpoints break the same way everywhere.
local SLOTS = 65536

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
    local hashes, owners = {}, {}
    for j = 1, n do
        local value = packed[j]
        local owner = value % SLOTS
        owners[j] = owner
        hashes[j] = (value - owner) / SLOTS
    end
    return setmetatable({ endpoints = endpoints, hashes = hashes, owners = owners, size = n }, mt)
end

-- The endpoint that owns `key` (a string), or nil when the ring is empty.
function _M.find(self, key)
    local size = self.size
    if size == 0 then
        return nil
    end
    local hash = crc32(key)
    local hashes = self.hashes
    -- The first point at or after the hash; past the last point the ring wraps to the first.
    local low, high = 1, size + 1
    while low < high do
        local middle = math_floor((low + high) / 2)
        if hashes[middle] < hash then
            low = middle + 1
        else
            high = middle
        end
    end
    if low > size then
        low = 1
    end
    return self.endpoints[self.owners[low]]
end

return _M
