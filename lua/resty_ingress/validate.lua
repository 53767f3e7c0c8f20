-- Validates the body of POST /configuration/backends and turns each backend
-- into a canonical JSON string. Canonical (fixed key order, no escaping
-- needed: every string is checked against a narrow grammar) so that the store
-- can tell "unchanged" by plain string comparison and never deep-compares.
local json_body = require("resty_ingress.json_body")
local ip_address = require("resty_ingress.ip_address")
local validate_affinity = require("resty_ingress.validate_affinity")
local chash = require("resty_ingress.chash")

local type = type
local pairs = pairs
local tostring = tostring
local concat = table.concat
local str_find = string.find
local str_byte = string.byte
local str_sub = string.sub
local str_gsub = string.gsub
local str_format = string.format
local math_floor = math.floor

local ALGORITHMS = { round_robin = true, ewma = true }
local MAX_NAME_LEN = 253
-- How much of a refused value a reason quotes.
local MAX_SHOWN = 64

local _M = {}

local function escape_byte(char)
    return str_format("\\x%02x", str_byte(char))
end

-- A refused value as a reason quotes it: cut short, and every byte that is not
-- printable ASCII (NUL, newlines, invalid UTF-8), a quote or a backslash as \xHH.
local function show(value)
    if type(value) ~= "string" then
        return tostring(value)
    end
    local cut = #value > MAX_SHOWN and str_sub(value, 1, MAX_SHOWN) .. "..." or value
    return '"' .. str_gsub(cut, '[%c"\\\128-\255]', escape_byte) .. '"'
end

-- A JSON array decodes to a Lua table with keys 1..n and nothing else.
local function is_sequence(value)
    if type(value) ~= "table" then
        return false
    end
    local count = 0
    for _ in pairs(value) do
        count = count + 1
    end
    return count == #value
end
_M.is_sequence = is_sequence

-- The first key of `object` that `known` (name -> true) does not list, as text; nil when none.
-- Configuration bodies are strict: a misspelt field is refused, never ignored.
function _M.unknown_field(object, known)
    for name in pairs(object) do
        if not known[name] then
            return tostring(name)
        end
    end
    return nil
end

-- A body {"<field>":[item...]} (no other field) as canonical JSON: each item checked by
-- check(item, index from 0, seen) -> its canonical text, or nil and a reason fit for a 400 answer.
function _M.parse_list_body(body, field, check)
    local doc, err = json_body.decode_table(body, "{", 'body must be a JSON object {"' .. field .. '":[...]}')
    if not doc then
        return nil, err
    end
    local extra = _M.unknown_field(doc, { [field] = true })
    if extra then
        return nil, "unknown field " .. extra
    end
    local list = doc[field]
    if not is_sequence(list) then
        return nil, field .. " must be an array"
    end
    local parts, seen = {}, {}
    for i = 1, #list do
        local text, reason = check(list[i], i - 1, seen)
        if not text then
            return nil, reason
        end
        parts[i] = text
    end
    return '{"' .. field .. '":[' .. concat(parts, ",") .. "]}"
end

local function is_name(name)
    return type(name) == "string" and #name > 0 and #name <= MAX_NAME_LEN
           and not str_find(name, "[^A-Za-z0-9._-]")
end
-- A backend name as the backends endpoints accept it (routes_api.lua checks canary backends with it).
_M.is_name = is_name

-- Where a refused value sits ("[3]", "set[0].endpoints[2]"): built only for a
-- reason, never for a value that passes (a push of 10,000 backends made 60,000).
local function at(where, index)
    return where .. "[" .. index .. "]"
end

-- The endpoint's canonical text, or nil and the reason after its place.
local function check_endpoint(endpoint)
    if type(endpoint) ~= "table" then
        return nil, ": must be an object"
    end
    local address = endpoint.address
    if not ip_address.is_ip(address) then
        return nil, ".address: must be an IPv4 or IPv6 address, got " .. show(address)
    end
    local port = endpoint.port
    if type(port) ~= "number" or port ~= math_floor(port) or port < 1 or port > 65535 then
        return nil, ".port: must be an integer 1..65535, got " .. show(port)
    end
    return '{"address":"' .. address .. '","port":' .. port .. '}'
end

-- backend: list[index + 1] of the list at `where` ("" or "set").
local function check_backend(backend, where, index)
    if type(backend) ~= "table" or is_sequence(backend) and #backend > 0 then
        return nil, at(where, index) .. ": must be an object"
    end
    local name = backend.name
    if not is_name(name) then
        return nil, at(where, index) .. ".name: must be 1.." .. MAX_NAME_LEN
                    .. " characters of [A-Za-z0-9._-]"
    end
    if not ALGORITHMS[backend.loadBalance] then
        return nil, at(where, index) .. ".loadBalance: must be \"round_robin\" or \"ewma\""
    end
    local hash = "null"
    if backend.hash ~= nil then
        local hash_err
        hash, hash_err = chash.check(backend.hash, at(where, index) .. ".hash")
        if not hash then
            return nil, hash_err
        end
    end
    local endpoints = backend.endpoints
    if not is_sequence(endpoints) then
        return nil, at(where, index) .. ".endpoints: must be an array"
    end
    local parts = {}
    for i = 1, #endpoints do
        local json, err = check_endpoint(endpoints[i])
        if not json then
            return nil, at(where, index) .. at(".endpoints", i - 1) .. err
        end
        parts[i] = json
    end
    -- Session affinity (sticky.lua): absent or null = none, and then not written.
    local affinity = ""
    if backend.affinity ~= nil and backend.affinity ~= json_body.null then
        local json, err = validate_affinity.check(backend.affinity, at(where, index), is_sequence)
        if not json then
            return nil, err
        end
        affinity = ',"affinity":' .. json
    end
    return '{"name":"' .. name .. '","loadBalance":"' .. backend.loadBalance
           .. '","endpoints":[' .. concat(parts, ",") .. ']' .. affinity
           .. (hash == "null" and "" or ',"hash":' .. hash) .. '}'
end

-- Checks a list of backends (where: "" or "set", for reasons): an array of
-- { name = ..., json = ... } in the order given, seen[name] set for each; or nil
-- and a reason.
local function check_backends(list, where, seen)
    local result = {}
    for i = 1, #list do
        local json, reason = check_backend(list[i], where, i - 1)
        if not json then
            return nil, reason
        end
        local name = list[i].name
        if seen[name] then
            return nil, at(where, i - 1) .. ".name: duplicate backend " .. name
        end
        seen[name] = true
        result[i] = { name = name, json = json }
    end
    return result
end

-- Returns an array of { name = ..., json = ... } in the order given, or nil
-- and a reason fit for a 400 answer.
function _M.parse_backends(body)
    local decoded, err = json_body.decode_table(body, "[", "body must be a JSON array of backends")
    if not decoded then
        return nil, err
    end
    if not is_sequence(decoded) then
        return nil, "body must be a JSON array of backends"
    end
    return check_backends(decoded, "", {})
end

-- The body of PATCH /configuration/backends: {"set":[backend...],"remove":[name...]}.
-- Returns { set = <as parse_backends>, remove = { name... } }, or nil and a reason.
function _M.parse_patch(body)
    local decoded, err = json_body.decode_table(body, "{",
        'body must be a JSON object {"set":[...],"remove":[...]}')
    if not decoded then
        return nil, err
    end
    local set, remove = decoded.set, decoded.remove
    if not is_sequence(set) or not is_sequence(remove) then
        return nil, "set and remove must both be arrays"
    end
    local seen = {}
    local parsed, reason = check_backends(set, "set", seen)
    if not parsed then
        return nil, reason
    end
    for i = 1, #remove do
        local name = remove[i]
        if not is_name(name) then
            return nil, "remove[" .. (i - 1) .. "]: must be 1.." .. MAX_NAME_LEN
                        .. " characters of [A-Za-z0-9._-]"
        end
        if seen[name] then
            return nil, "remove[" .. (i - 1) .. "]: " .. name .. " is also in set"
        end
        seen[name] = true
    end
    return { set = parsed, remove = remove }
end

return _M
