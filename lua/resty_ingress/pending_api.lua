-- The body of POST /configuration/pending (called by configuration.lua): the
-- FULL set of pending hosts, the new hosts whose server {} the next reload
-- renders and whose routes are plain (the controller decides which:
-- controller/src/sync/pending-hosts.ts). Until that reload is confirmed, the
-- catch-all server serves them (pending.lua):
--   {"hosts":[{"host":"<lowercase name>",
--              "paths":[{"path":"/x","match":"exact"|"prefix","key":"<$resty_route>"}...]}...]}
-- `paths` are the NGINX locations the server will have: "exact" is
-- `location = /x`, "prefix" a plain `location /x/` (a Prefix path /x is both).
-- Checked strictly (unknown fields, wrong types, a wildcard or upper-case
-- host, a path with a control character or space: 400, nothing stored) and
-- turned into one canonical JSON text, so the store tells "unchanged" by
-- comparing strings.
local cjson_safe = require("cjson.safe")
local validate = require("resty_ingress.validate")
local unknown_field = validate.unknown_field

local type = type
local tostring = tostring
local concat = table.concat
local sort = table.sort
local str_find = string.find
local str_match = string.match
local str_sub = string.sub

local json = cjson_safe.new()

local MAX_HOST_LEN = 253
local MAX_PATH_LEN = 1024
local MAX_KEY_LEN = 2048
-- A DNS name as the model writes it: lowercase, no wildcard, no port.
local HOST_PATTERN = "^[a-z0-9][a-z0-9.-]*$"
local KEY_PATTERN = "^%S+ %S+ %S+ %S+ %S+ %S+ %S+$"
local MATCHES = { exact = true, prefix = true }

local HOST_FIELDS = { host = true, paths = true }
local PATH_FIELDS = { path = true, match = true, key = true }

local _M = {}

local function check_path(entry, where)
    if type(entry) ~= "table" then
        return nil, where .. " must be an object"
    end
    local extra = unknown_field(entry, PATH_FIELDS)
    if extra then
        return nil, where .. ": unknown field " .. extra
    end
    local path, key = entry.path, entry.key
    if type(path) ~= "string" or #path > MAX_PATH_LEN or str_sub(path, 1, 1) ~= "/" or str_find(path, "[%c%s]") then
        return nil, where .. ".path must start with / and have at most " .. MAX_PATH_LEN
                    .. " characters, no space or control character"
    end
    if not MATCHES[entry.match] then
        return nil, where .. '.match must be "exact" or "prefix"'
    end
    if type(key) ~= "string" or #key > MAX_KEY_LEN or str_find(key, "%c") or not str_find(key, KEY_PATTERN) then
        return nil, where .. ".key must be a $resty_route value: 7 words, at most " .. MAX_KEY_LEN .. " characters"
    end
    if not validate.is_name(str_match(key, "^%S+ (%S+)")) then
        return nil, where .. ".key must name a backend as its 2nd word"
    end
    return '{"path":' .. json.encode(path) .. ',"match":"' .. entry.match .. '","key":' .. json.encode(key) .. "}"
end

local function check_host(item, where, seen)
    if type(item) ~= "table" then
        return nil, where .. " must be an object"
    end
    local extra = unknown_field(item, HOST_FIELDS)
    if extra then
        return nil, where .. ": unknown field " .. extra
    end
    local host = item.host
    if type(host) ~= "string" or #host > MAX_HOST_LEN or not str_find(host, HOST_PATTERN) then
        return nil, where .. ".host must be a lowercase DNS name without wildcard or port"
    end
    if seen[host] then
        return nil, where .. ".host appears twice"
    end
    seen[host] = true
    local paths = item.paths
    if not validate.is_sequence(paths) or #paths == 0 then
        return nil, where .. ".paths must be a non-empty array"
    end
    local parts = {}
    for i = 1, #paths do
        local text, err = check_path(paths[i], where .. ".paths[" .. (i - 1) .. "]")
        if not text then
            return nil, err
        end
        parts[i] = text
    end
    return '{"host":"' .. host .. '","paths":[' .. concat(parts, ",") .. "]}"
end

-- Returns the canonical JSON of a POST body, or nil and a reason fit for a 400 answer.
function _M.parse(body)
    return validate.parse_list_body(body, "hosts", function(item, index, seen)
        return check_host(item, "hosts[" .. index .. "]", seen)
    end)
end

local function longer_first(a, b)
    return #a.path > #b.path
end

-- The stored text as lookup tables:
--   { [host] = { exact = { [path] = route }, prefixes = { {path=, route=}... longest first } } }
-- where route = { key = <$resty_route>, backend = <its 2nd word> }.
-- Returns nil and an error when the text does not decode (never stored by parse()).
function _M.compile(text)
    local doc, err = json.decode(text)
    if type(doc) ~= "table" or type(doc.hosts) ~= "table" then
        return nil, "stored pending hosts do not decode: " .. tostring(err)
    end
    local hosts = {}
    for i = 1, #doc.hosts do
        local item = doc.hosts[i]
        local exact, prefixes = {}, {}
        for j = 1, #item.paths do
            local entry = item.paths[j]
            local route = { key = entry.key, backend = str_match(entry.key, "^%S+ (%S+)") }
            if entry.match == "exact" then
                exact[entry.path] = exact[entry.path] or route
            else
                prefixes[#prefixes + 1] = { path = entry.path, route = route }
            end
        end
        sort(prefixes, longer_first)
        hosts[item.host] = { exact = exact, prefixes = prefixes }
    end
    return hosts
end

-- What GET answers before any POST.
_M.EMPTY = '{"hosts":[]}'

return _M
