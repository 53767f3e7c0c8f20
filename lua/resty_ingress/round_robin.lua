-- Smooth weighted round robin (NGINX's own algorithm, resty.roundrobin
-- semantics): each pick adds every peer's weight to its running score, takes
-- the highest and subtracts the total from it. With equal weights (all
-- DynamicBackend endpoints today) that is plain rotation, done in O(1).
local setmetatable = setmetatable

local _M = {}
local mt = { __index = _M }

-- endpoints: array of { address, port, key, weight? } (see balancer.lua).
function _M.new(endpoints)
    local count = #endpoints
    local weights, current = {}, {}
    local total, uniform = 0, true
    for i = 1, count do
        local weight = endpoints[i].weight or 1
        weights[i] = weight
        current[i] = 0
        total = total + weight
        if weight ~= weights[1] then
            uniform = false
        end
    end
    return setmetatable({
        endpoints = endpoints,
        count = count,
        weights = weights,
        current = current,
        total = total,
        uniform = uniform,
        next_index = 1,
    }, mt)
end

function _M.find(self)
    local count = self.count
    if count == 0 then
        return nil
    end
    if self.uniform then
        local index = self.next_index
        self.next_index = index % count + 1
        return self.endpoints[index]
    end
    local weights, current = self.weights, self.current
    local best, best_score = 1, nil
    for i = 1, count do
        local score = current[i] + weights[i]
        current[i] = score
        if best_score == nil or score > best_score then
            best, best_score = i, score
        end
    end
    current[best] = best_score - self.total
    return self.endpoints[best]
end

-- Round robin learns nothing from responses or failures.
function _M.feedback()
end

function _M.failed()
end

return _M
