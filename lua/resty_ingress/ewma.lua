-- Peak-EWMA with power-of-two choices (as ingress-nginx's "ewma"): each
-- endpoint keeps an exponentially weighted moving average of its response
-- time, decaying with age; a pick draws two distinct endpoints at random and
-- takes the one with the lower score. State is per worker and per backend.
local ngx = ngx
local math_exp = math.exp
local math_random = math.random
local setmetatable = setmetatable

local DECAY_TIME = 10 -- seconds: how fast old response times stop counting
local FAILURE_PENALTY = 5 -- seconds of response time charged for a failed try

local _M = {}
local mt = { __index = _M }

function _M.new(endpoints)
    local scores, touched, index_of = {}, {}, {}
    for i = 1, #endpoints do
        scores[i] = 0
        touched[i] = 0
        index_of[endpoints[i].key] = i
    end
    return setmetatable({
        endpoints = endpoints,
        count = #endpoints,
        scores = scores,
        touched = touched,
        index_of = index_of,
    }, mt)
end

-- The score decays towards 0 while an endpoint is not chosen, so a slow
-- endpoint gets traffic again later instead of being starved forever.
local function decayed_score(self, i, now)
    local age = now - self.touched[i]
    if age <= 0 then
        return self.scores[i]
    end
    return self.scores[i] * math_exp(-age / DECAY_TIME)
end

function _M.find(self)
    local count = self.count
    if count < 2 then
        return self.endpoints[1]
    end
    local a = math_random(count)
    local b = math_random(count - 1)
    if b >= a then
        b = b + 1
    end
    local now = ngx.now()
    if decayed_score(self, b, now) < decayed_score(self, a, now) then
        a = b
    end
    return self.endpoints[a]
end

-- rtt in seconds for the endpoint with this key ("addr:port").
function _M.feedback(self, key, rtt)
    local i = self.index_of[key]
    if not i then
        return
    end
    local now = ngx.now()
    local age = now - self.touched[i]
    local weight = age > 0 and math_exp(-age / DECAY_TIME) or 1
    self.scores[i] = self.scores[i] * weight + rtt * (1 - weight)
    if self.scores[i] == 0 then
        self.scores[i] = rtt -- first sample
    end
    self.touched[i] = now
end

function _M.failed(self, key)
    _M.feedback(self, key, FAILURE_PENALTY)
end

return _M
