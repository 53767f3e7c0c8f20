-- Canary policies: which requests of a route go to its canary backend, with
-- ingress-nginx v1.15.1's rules (route_to_alternative_balancer in its
-- balancer.lua), decided once per request on its first try (balancer.lua):
--   1. the header, when the policy names one and the request has it:
--      headerValue set: equal -> canary, else go on to 2;
--      headerPattern set (and no headerValue): a PCRE match -> canary, else
--      go on to 2 (a matching error -> main);
--      neither: "always" -> canary, "never" -> main, else go on to 2;
--   2. the cookie, when the policy names one and the request has it:
--      "always" -> canary, "never" -> main, else go on to 3;
--   3. the weight: canary when math.random(total) <= weight, where total is
--      weightTotal but never less than 100 (ingress-nginx's rule: a
--      weightTotal below 100 counts as 100).
-- compile() turns a stored policy (routes_api.lua's canonical JSON, decoded)
-- into what chooses() reads: variable names built once, never per request.
local ngx = ngx
local cjson = require("cjson.safe")

local var = ngx.var
local re_find = ngx.re.find
local ngx_log = ngx.log
local ERR = ngx.ERR
local math_random = math.random
local math_max = math.max
local str_gsub = string.gsub
local str_lower = string.lower
local type = type

local ALWAYS = "always"
local NEVER = "never"
-- ingress-nginx draws from at least this many.
local MIN_WEIGHT_TOTAL = 100

local _M = {}

-- JSON null and absent both mean "not set".
local function optional(value)
    if value == cjson.null then
        return nil
    end
    return value
end

-- canary: { backend, weight, weightTotal, header, headerValue, headerPattern, cookie }
-- as routes_api.lua stores it. Returns the policy chooses() reads.
function _M.compile(canary)
    local header = optional(canary.header)
    local cookie = optional(canary.cookie)
    return {
        backend = canary.backend,
        weight = canary.weight,
        total = math_max(MIN_WEIGHT_TOTAL, canary.weightTotal),
        -- $http_<name>: lower case, "-" as "_" (NGINX's own mapping of header names).
        header_var = header and "http_" .. str_lower((str_gsub(header, "-", "_"))) or nil,
        header_value = optional(canary.headerValue),
        header_pattern = optional(canary.headerPattern),
        cookie_var = cookie and "cookie_" .. cookie or nil,
    }
end

-- The header rule: true (canary), false (main) or nil (no verdict: go on).
local function by_header(policy, value)
    local wanted = policy.header_value
    if wanted then
        if value == wanted then
            return true
        end
        return nil
    end
    local pattern = policy.header_pattern
    if pattern then
        local from, _, err = re_find(value, pattern, "jo")
        if from then
            return true
        end
        if err then
            ngx_log(ERR, "canary header pattern ", pattern, ": ", err)
            return false
        end
        return nil
    end
    if value == ALWAYS then
        return true
    end
    if value == NEVER then
        return false
    end
    return nil
end

-- True when this request goes to the canary.
function _M.chooses(policy)
    local header_var = policy.header_var
    if header_var then
        local value = var[header_var]
        if value then
            local verdict = by_header(policy, value)
            if verdict ~= nil then
                return verdict
            end
        end
    end
    local cookie_var = policy.cookie_var
    if cookie_var then
        local value = var[cookie_var]
        if value == ALWAYS then
            return true
        end
        if value == NEVER then
            return false
        end
    end
    return math_random(policy.total) <= policy.weight
end

-- For routes_api.lua: does PCRE accept this pattern? Returns true, or nil and PCRE's reason.
function _M.check_pattern(pattern)
    if type(pattern) ~= "string" then
        return nil, "not a string"
    end
    -- No "o": a pattern that is refused or replaced must not stay in the worker's regex cache.
    local _, _, err = re_find("", pattern, "j")
    if err then
        return nil, err
    end
    return true
end

return _M
