-- POST /configuration/credentials (called by configuration.lua): the FULL set
-- of basic/digest user sets, one per Ingress with authentication,
--   {"sets":[{"id":"<namespace>/<ingress>","type":"basic"|"digest",
--             "realm":"<realm>","users":{"<user>":"<hash>",...}}...]}
-- checked strictly (unknown fields, wrong types, a bad id, realm, user or
-- hash: 400, nothing stored), then kept as one JSON text in the shared dict
-- resty_credentials with a version the request path (auth.lua) compares to
-- decide when to decode it again. GET answers the ids and user counts only:
-- hashes never leave NGINX.
local cjson_safe = require("cjson.safe")
local json_body = require("resty_ingress.json_body")
local validate = require("resty_ingress.validate")
local shared_dict = require("resty_ingress.shared_dict")
local unknown_field = validate.unknown_field

local type = type
local pairs = pairs
local str_find = string.find
local str_format = string.format

local json = cjson_safe.new()

local DICT = "resty_credentials"
local MAX_USERS = 10000
local MAX_USER_LEN = 256
local MAX_HASH_LEN = 512
local MAX_REALM_LEN = 256
-- "<namespace>/<ingress>": a DNS-1123 label and subdomain (the controller's own names).
local ID_PATTERN = "^[a-z0-9][-a-z0-9]*/[a-z0-9][-.a-z0-9]*$"
-- ingress-nginx's CharsWithSpace: the realm goes into a quoted header value.
local REALM_PATTERN = "^[-._~a-zA-Z0-9/: ]*$"

local DOC_FIELDS = { sets = true }
local SET_FIELDS = { id = true, type = true, realm = true, users = true }

local _M = {}

_M.EMPTY = '{"version":0,"sets":[]}'

local function check_users(users, kind, where)
    if type(users) ~= "table" then
        return where .. ": users must be an object"
    end
    local count = 0
    for user, hash in pairs(users) do
        count = count + 1
        if count > MAX_USERS then
            return where .. ": more than " .. MAX_USERS .. " users"
        end
        if type(user) ~= "string" or user == "" or #user > MAX_USER_LEN or str_find(user, "[%c:]") then
            return where .. ": a user name is empty, too long, or holds ':' or a control character"
        end
        if type(hash) ~= "string" or #hash > MAX_HASH_LEN or str_find(hash, "%c") then
            return where .. ": the hash of a user is not a string of at most " .. MAX_HASH_LEN .. " printable bytes"
        end
        if kind == "digest" and hash ~= "" and not (#hash == 32 and str_find(hash, "^%x+$")) then
            return where .. ": a digest user needs 32 hex digits"
        end
    end
    return nil
end

local function check_set(set, i, seen)
    local where = "sets[" .. (i - 1) .. "]"
    if type(set) ~= "table" then
        return where .. " must be an object"
    end
    local unknown = unknown_field(set, SET_FIELDS)
    if unknown then
        return where .. ": unknown field " .. str_format("%q", unknown)
    end
    if type(set.id) ~= "string" or #set.id > 320 or not str_find(set.id, ID_PATTERN) then
        return where .. ": id must be <namespace>/<ingress>"
    end
    if seen[set.id] then
        return where .. ": id " .. set.id .. " appears twice"
    end
    seen[set.id] = true
    if set.type ~= "basic" and set.type ~= "digest" then
        return where .. ": type must be basic or digest"
    end
    if type(set.realm) ~= "string" or #set.realm > MAX_REALM_LEN or not str_find(set.realm, REALM_PATTERN) then
        return where .. ": realm must be letters, digits, spaces and -._~/: only"
    end
    return check_users(set.users, set.type, where)
end

-- The body checked: its canonical JSON text, or nil and a reason fit for a 400 answer.
function _M.parse(body)
    local doc, err = json_body.decode_table(body, "{", 'the body must be a JSON object {"sets":[...]}')
    if not doc then
        return nil, err
    end
    local unknown = unknown_field(doc, DOC_FIELDS)
    if unknown then
        return nil, "unknown field " .. str_format("%q", unknown)
    end
    local sets = doc.sets
    if type(sets) ~= "table" or (next(sets) ~= nil and #sets == 0) then
        return nil, "sets must be an array"
    end
    local seen = {}
    for i = 1, #sets do
        local reason = check_set(sets[i], i, seen)
        if reason then
            return nil, reason
        end
    end
    local text = json.encode(sets)
    if #sets == 0 then
        text = "[]"
    end
    return text
end

local function dict()
    return shared_dict.get(DICT)
end
_M.dict = dict

-- Stores the checked text (under configuration.lua's lock); returns the new version.
function _M.replace(text)
    local shared = dict()
    local ok, err = shared_dict.put(shared, "sets", text)
    if not ok then
        return nil, err
    end
    local version = (shared:get("version") or 0) + 1
    ok, err = shared_dict.put(shared, "version", version)
    if not ok then
        return nil, err
    end
    return version
end

-- {"version":N,"sets":[{"id":..,"type":..,"users":count}]}: no hash, no realm.
function _M.summary()
    local shared = dict()
    local text = shared:get("sets")
    if not text then
        return _M.EMPTY
    end
    local sets = json.decode(text) or {}
    local out = {}
    for i = 1, #sets do
        local count = 0
        for _ in pairs(sets[i].users) do
            count = count + 1
        end
        out[i] = str_format('{"id":%s,"type":%s,"users":%d}', json.encode(sets[i].id), json.encode(sets[i].type), count)
    end
    return '{"version":' .. (shared:get("version") or 0) .. ',"sets":[' .. table.concat(out, ",") .. "]}"
end

return _M
