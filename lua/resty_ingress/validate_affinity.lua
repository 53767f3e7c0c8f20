-- Validates the `affinity` of a backend in POST/PATCH /configuration/backends
-- (DynamicBackend.affinity, controller/src/model/types.ts BackendAffinity) and
-- writes it as canonical JSON: fixed key order, every string checked against
-- a grammar that needs no escaping, so the store still compares backends as
-- plain strings. The cookie it describes is written into a response header
-- (sticky.lua): no value may carry a ";", a space or a control character.
local json_body = require("resty_ingress.json_body")

local type = type
local tostring = tostring
local concat = table.concat
local str_find = string.find
local str_lower = string.lower
local math_floor = math.floor

local NULL = json_body.null
local MAX_SECONDS = 2147483647
local MAX_TEXT = 1024
local MAX_INGRESSES = 10000
-- RFC 6265 cookie-name (an RFC 9110 token).
local NOT_TOKEN = "[^%w!#%$%%&'%*%+%.%^_`|~%-]"
local NOT_PATH = "[^%w%-%._~/:,%?&=]"
local NOT_DOMAIN = "[^%w%-%._~/:]"
local SAME_SITE = { none = true, lax = true, strict = true }
local MODES = { balanced = true, persistent = true }
local FLAGS = { "secure", "conditionalSameSiteNone", "changeOnFailure" }

local _M = {}

local function text(value, max, not_allowed)
    return type(value) == "string" and #value > 0 and #value <= max and not str_find(value, not_allowed)
end

local function optional_text(affinity, key, not_allowed, where)
    local value = affinity[key]
    if value == nil or value == NULL then
        return "null"
    end
    if not text(value, MAX_TEXT, not_allowed) then
        return nil, where .. "." .. key .. ": must be null or 1.." .. MAX_TEXT
                    .. " characters without spaces, \";\" or quotes"
    end
    return '"' .. value .. '"'
end

local function optional_seconds(affinity, key, where)
    local value = affinity[key]
    if value == nil or value == NULL then
        return "null"
    end
    if type(value) ~= "number" or value ~= math_floor(value) or value < -MAX_SECONDS or value > MAX_SECONDS then
        return nil, where .. "." .. key .. ": must be null or whole seconds within 32 bits"
    end
    return tostring(value)
end

-- "namespace/name" of an Ingress (DNS labels and subdomains).
local function is_ingress(value)
    return type(value) == "string" and #value <= 507
           and str_find(value, "^[a-z0-9][a-z0-9%.%-]*/[a-z0-9][a-z0-9%.%-]*$") ~= nil
end

-- affinity: the decoded value; is_sequence: validate.lua's. Returns the canonical JSON, or nil and a reason.
function _M.check(affinity, where, is_sequence)
    where = where .. ".affinity"
    if type(affinity) ~= "table" or is_sequence(affinity) and #affinity > 0 then
        return nil, where .. ": must be an object"
    end
    if not MODES[affinity.mode] then
        return nil, where .. '.mode: must be "balanced" or "persistent"'
    end
    if not text(affinity.cookie, 128, NOT_TOKEN) then
        return nil, where .. ".cookie: must be a cookie name of 1..128 token characters"
    end
    local parts = { '{"mode":"', affinity.mode, '","cookie":"', affinity.cookie, '"' }
    local fields = {
        { "path", optional_text(affinity, "path", NOT_PATH, where) },
        { "domain", optional_text(affinity, "domain", NOT_DOMAIN, where) },
        { "expires", optional_seconds(affinity, "expires", where) },
        { "maxAge", optional_seconds(affinity, "maxAge", where) },
    }
    for i = 1, #fields do
        local json, reason = fields[i][2], fields[i][3]
        if not json then
            return nil, reason
        end
        parts[#parts + 1] = ',"' .. fields[i][1] .. '":' .. json
    end
    local same_site = affinity.sameSite
    if same_site == nil or same_site == NULL then
        same_site = nil
    elseif type(same_site) ~= "string" or not SAME_SITE[str_lower(same_site)] then
        return nil, where .. '.sameSite: must be null, "None", "Lax" or "Strict" (any case)'
    end
    parts[#parts + 1] = ',"sameSite":' .. (same_site and '"' .. same_site .. '"' or "null")
    for i = 1, #FLAGS do
        local flag = affinity[FLAGS[i]]
        if type(flag) ~= "boolean" then
            return nil, where .. "." .. FLAGS[i] .. ": must be true or false"
        end
        parts[#parts + 1] = ',"' .. FLAGS[i] .. '":' .. tostring(flag)
    end
    local ingresses = affinity.ingresses
    if not is_sequence(ingresses) or #ingresses > MAX_INGRESSES then
        return nil, where .. ".ingresses: must be an array of at most " .. MAX_INGRESSES .. " Ingresses"
    end
    local names = {}
    for i = 1, #ingresses do
        if not is_ingress(ingresses[i]) then
            return nil, where .. ".ingresses[" .. (i - 1) .. "]: must be \"namespace/name\""
        end
        names[i] = '"' .. ingresses[i] .. '"'
    end
    parts[#parts + 1] = ',"ingresses":[' .. concat(names, ",") .. ']}'
    return concat(parts)
end

return _M
