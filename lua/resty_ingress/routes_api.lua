-- The body of POST /configuration/routes (called by configuration.lua): the
-- FULL set of route policies,
--   {"routes":[{"key":"<$resty_route of a main location>",
--               "canary":{"backend":"<backend>","weight":W,"weightTotal":T,
--                         "header":H|null,"headerValue":V|null,
--                         "headerPattern":P|null,"cookie":C|null}}...]}
-- checked strictly (unknown fields, wrong types, out of range values, a
-- pattern PCRE refuses: 400, nothing stored) and turned into one canonical
-- JSON text (fixed key order, weightTotal defaulted to 100), so the store can
-- tell "unchanged" by comparing strings (store.lua) and workers rebuild their
-- policies (canary.lua) only when it really changed. Absent and null optional
-- fields are the same; an empty string is refused (ingress-nginx treats "" as
-- unset: the controller sends null).
local cjson_safe = require("cjson.safe")
local json_body = require("resty_ingress.json_body")
local validate = require("resty_ingress.validate")
local canary = require("resty_ingress.canary")
local unknown_field = validate.unknown_field

local type = type
local tostring = tostring
local str_find = string.find
local str_format = string.format
local math_floor = math.floor

-- Decoding goes through json_body (strict); this instance only encodes and
-- decodes what parse() itself wrote.
local json = cjson_safe.new()
local null = json_body.null

-- The model's longest key is 1,854 bytes: a 1024-character path, a 253-character host and
-- Ingress name, a 63-character namespace and Service, their backend name (191) and the flags.
local MAX_KEY_LEN = 2048
local MAX_TOKEN_LEN = 256
local MAX_VALUE_LEN = 1024
local MAX_WEIGHT_TOTAL = 2147483647
local DEFAULT_WEIGHT_TOTAL = 100
-- A key is a rendered $resty_route: "<flags> <backend> <host> <namespace> <ingress> <service> <path>".
local KEY_PATTERN = "^%S+ %S+ %S+ %S+ %S+ %S+ %S+$"
-- Anything but an RFC 9110 token character (header and cookie names).
local NOT_TOKEN = "[^%w!#%$%%&'%*%+%-%.%^_`|~]"

local ROUTE_FIELDS = { key = true, canary = true }
local CANARY_FIELDS = {
    backend = true, weight = true, weightTotal = true,
    header = true, headerValue = true, headerPattern = true, cookie = true,
}

local _M = {}

local function is_integer(value, min, max)
    return type(value) == "number" and value == math_floor(value) and value >= min and value <= max
end

-- nil for absent/null, else the string when it is 1..max bytes with no
-- control character (and a token when `token`); false when it is not.
local function optional_string(value, max, token)
    if value == nil or value == null then
        return nil
    end
    if type(value) ~= "string" or #value == 0 or #value > max or str_find(value, "%c")
        or token and str_find(value, NOT_TOKEN) then
        return false
    end
    return value
end

local function encode_optional(value)
    return value and json.encode(value) or "null"
end

local function check_canary(policy, where)
    if type(policy) ~= "table" then
        return nil, where .. " must be an object"
    end
    local extra = unknown_field(policy, CANARY_FIELDS)
    if extra then
        return nil, where .. ": unknown field " .. extra
    end
    if not validate.is_name(policy.backend) then
        return nil, where .. ".backend must be a backend name (1..253 characters of [A-Za-z0-9._-])"
    end
    local total = policy.weightTotal
    if total == nil or total == null then
        total = DEFAULT_WEIGHT_TOTAL
    elseif not is_integer(total, 1, MAX_WEIGHT_TOTAL) then
        return nil, where .. ".weightTotal must be an integer 1.." .. MAX_WEIGHT_TOTAL
    end
    if not is_integer(policy.weight, 0, total) then
        return nil, where .. ".weight must be an integer 0.." .. total .. " (weightTotal)"
    end
    local header = optional_string(policy.header, MAX_TOKEN_LEN, true)
    local cookie = optional_string(policy.cookie, MAX_TOKEN_LEN, true)
    if header == false or cookie == false then
        return nil, where .. ": header and cookie must be null or a name of 1.." .. MAX_TOKEN_LEN
                    .. " token characters"
    end
    local value = optional_string(policy.headerValue, MAX_VALUE_LEN)
    local pattern = optional_string(policy.headerPattern, MAX_VALUE_LEN)
    if value == false or pattern == false then
        return nil, where .. ": headerValue and headerPattern must be null or 1.." .. MAX_VALUE_LEN
                    .. " characters without control characters"
    end
    if pattern then
        local ok, err = canary.check_pattern(pattern)
        if not ok then
            return nil, where .. ".headerPattern is not a valid PCRE pattern: " .. tostring(err)
        end
    end
    return '{"backend":"' .. policy.backend .. '","weight":' .. str_format("%d", policy.weight)
           .. ',"weightTotal":' .. str_format("%d", total)
           .. ',"header":' .. encode_optional(header) .. ',"headerValue":' .. encode_optional(value)
           .. ',"headerPattern":' .. encode_optional(pattern) .. ',"cookie":' .. encode_optional(cookie) .. "}"
end

local function check_route(route, index, seen)
    local where = "routes[" .. index .. "]"
    if type(route) ~= "table" then
        return nil, where .. " must be an object"
    end
    local extra = unknown_field(route, ROUTE_FIELDS)
    if extra then
        return nil, where .. ": unknown field " .. extra
    end
    local key = route.key
    if type(key) ~= "string" or #key > MAX_KEY_LEN or str_find(key, "%c") or not str_find(key, KEY_PATTERN) then
        return nil, where .. ".key must be a $resty_route value: 7 words, at most " .. MAX_KEY_LEN
                    .. " characters, no control character"
    end
    if seen[key] then
        return nil, where .. ".key appears twice"
    end
    seen[key] = true
    local policy, err = check_canary(route.canary, where .. ".canary")
    if not policy then
        return nil, err
    end
    return '{"key":' .. json.encode(key) .. ',"canary":' .. policy .. "}"
end

-- Returns the canonical JSON of a POST body, or nil and a reason fit for a 400 answer.
function _M.parse(body)
    return validate.parse_list_body(body, "routes", check_route)
end

-- The stored policies, decoded: { [key] = canary object } (canonical, so no check is needed).
-- Returns nil and an error when the text does not decode.
function _M.decode(text)
    local doc, err = json.decode(text)
    if type(doc) ~= "table" or type(doc.routes) ~= "table" then
        return nil, "stored routes do not decode: " .. tostring(err)
    end
    local by_key = {}
    for i = 1, #doc.routes do
        local route = doc.routes[i]
        by_key[route.key] = route.canary
    end
    return by_key
end

-- What GET answers before any POST.
_M.EMPTY = '{"routes":[]}'

return _M
