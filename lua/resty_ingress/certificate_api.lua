-- POST/PATCH/GET /configuration/certificates (called by configuration.lua).
-- POST body: {"certificates":[{"id","cert","key"}...],"hosts":{"<host>":"<id>"},
-- "defaultCertificate":"<id>"|null}, the FULL set. Every PEM is parsed here,
-- so a bad one is a 400 and the previous state stays. Reasons name ids and
-- hosts, never PEM content. GET answers the summary: no PEM, no key.
-- PATCH body: {"set":[{"id","cert","key"}...],"remove":["<id>"...],
-- "hosts":{"<host>":"<id>"|null},"defaultCertificate":"<id>"|null}, every
-- field optional (absent = unchanged; a host mapped to null is removed): only
-- what changed, so a large set goes in several bounded requests. Each PATCH
-- applies whole or not at all, and never leaves a host or the default naming
-- a certificate that is not stored (400 instead): every state in between is
-- one a handshake can use.
local ngx = ngx
local cjson = require("cjson.safe")
local json_body = require("resty_ingress.json_body")
local ssl = require("ngx.ssl")
local certificate_store = require("resty_ingress.certificate_store")

local type = type
local pairs = pairs
local ipairs = ipairs
local re_find = ngx.re.find
local str_find = string.find
local sort = table.sort

local MAX_CERTIFICATES = 20000
-- \z, not $: PCRE's $ also matches before a final newline ("ns/name\n").
local ID_PATTERN = [[^[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]([-a-z0-9.]*[a-z0-9])?\z]]
local HOST_PATTERN = [[^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\z]]

local _M = {}

local function check_certificate(item, index, seen)
    if type(item) ~= "table" then
        return nil, "certificates[" .. index .. "] must be an object"
    end
    local id = item.id
    if type(id) ~= "string" or #id > 320 or not re_find(id, ID_PATTERN, "jo") then
        return nil, "certificates[" .. index .. "].id must be namespace/name"
    end
    if seen[id] then
        return nil, "certificate " .. id .. " appears twice"
    end
    if type(item.cert) ~= "string" or not str_find(item.cert, "-----BEGIN CERTIFICATE-----", 1, true)
        or not ssl.parse_pem_cert(item.cert) then
        return nil, "certificate " .. id .. ": cert is not a PEM certificate chain"
    end
    if type(item.key) ~= "string" or not ssl.parse_pem_priv_key(item.key) then
        return nil, "certificate " .. id .. ": key is not a PEM private key"
    end
    seen[id] = true
    -- Built by hand so the same PEMs always give the same string (change detection).
    return { id = id, json = '{"cert":' .. cjson.encode(item.cert) .. ',"key":' .. cjson.encode(item.key) .. '}' }
end

-- Decodes and checks a POST body; returns the store's input or nil, reason.
function _M.parse(body)
    local doc, decode_err = json_body.decode(body)
    if type(doc) ~= "table" then
        return nil, "body must be a JSON object" .. (decode_err and ": " .. decode_err or "")
    end
    local list = doc.certificates
    if type(list) ~= "table" or #list > MAX_CERTIFICATES then
        return nil, "certificates must be an array of at most " .. MAX_CERTIFICATES
    end
    local certificates, seen = {}, {}
    for i, item in ipairs(list) do
        local checked, err = check_certificate(item, i - 1, seen)
        if not checked then
            return nil, err
        end
        certificates[i] = checked
    end
    if type(doc.hosts) ~= "table" then
        return nil, "hosts must be an object of host -> certificate id"
    end
    local hosts = {}
    for host, id in pairs(doc.hosts) do
        if type(host) ~= "string" or #host > 253 or not re_find(host, HOST_PATTERN, "jo") then
            return nil, "hosts: a key is not a lowercase DNS name"
        end
        if type(id) ~= "string" or not seen[id] then
            return nil, "hosts[" .. host .. "] names no posted certificate"
        end
        hosts[#hosts + 1] = { host = host, id = id }
    end
    sort(hosts, function(a, b) return a.host < b.host end)
    local default = doc.defaultCertificate
    if default == cjson.null then
        default = nil
    end
    if default ~= nil and (type(default) ~= "string" or not seen[default]) then
        return nil, "defaultCertificate names no posted certificate"
    end
    return { certificates = certificates, hosts = hosts, default = default }
end

local function check_id(id)
    return type(id) == "string" and #id <= 320 and re_find(id, ID_PATTERN, "jo") ~= nil
end

local function check_host(host)
    return type(host) == "string" and #host <= 253 and re_find(host, HOST_PATTERN, "jo") ~= nil
end

-- Decodes and checks a PATCH body on its own; the store checks it against what it holds.
function _M.parse_patch(body)
    local doc, decode_err = json_body.decode(body)
    if type(doc) ~= "table" then
        return nil, "body must be a JSON object" .. (decode_err and ": " .. decode_err or "")
    end
    local set_list, remove_list, host_map = doc.set or {}, doc.remove or {}, doc.hosts or {}
    if type(set_list) ~= "table" or #set_list > MAX_CERTIFICATES then
        return nil, "set must be an array of at most " .. MAX_CERTIFICATES
    end
    if type(remove_list) ~= "table" or #remove_list > MAX_CERTIFICATES then
        return nil, "remove must be an array of at most " .. MAX_CERTIFICATES
    end
    if type(host_map) ~= "table" then
        return nil, "hosts must be an object of host -> certificate id or null"
    end
    local set, seen = {}, {}
    for i, item in ipairs(set_list) do
        local checked, err = check_certificate(item, i - 1, seen)
        if not checked then
            return nil, err
        end
        set[i] = checked
    end
    local remove, removed = {}, {}
    for i, id in ipairs(remove_list) do
        if not check_id(id) then
            return nil, "remove[" .. (i - 1) .. "] must be namespace/name"
        end
        if seen[id] then
            return nil, "certificate " .. id .. " is both set and removed"
        end
        if not removed[id] then
            removed[id] = true
            remove[#remove + 1] = id
        end
    end
    local hosts = {}
    for host, id in pairs(host_map) do
        if not check_host(host) then
            return nil, "hosts: a key is not a lowercase DNS name"
        end
        if id ~= cjson.null and not check_id(id) then
            return nil, "hosts[" .. host .. "] must be a certificate id or null"
        end
        hosts[#hosts + 1] = { host = host, id = id ~= cjson.null and id or nil }
    end
    sort(hosts, function(a, b) return a.host < b.host end)
    local default = doc.defaultCertificate
    if default ~= nil and default ~= cjson.null and not check_id(default) then
        return nil, "defaultCertificate must be a certificate id or null"
    end
    return { set = set, set_ids = seen, remove = remove, removed = removed, hosts = hosts,
             default_given = default ~= nil, default = default ~= cjson.null and default or nil }
end

-- Returns status, body: 200 "version N", or 400 when the body or its effect on the store is refused.
function _M.patch(body, with_lock)
    local parsed, reason = _M.parse_patch(body)
    if not parsed then
        return 400, reason .. "\n"
    end
    local version, err = with_lock(function(patch)
        local ok, refusal = certificate_store.check_patch(patch)
        if not ok then
            return false, refusal
        end
        return certificate_store.patch(patch)
    end, parsed)
    if version == false then
        return 400, err .. "\n"
    end
    if not version then
        ngx.log(ngx.ERR, "configuration: certificates: ", err)
        return 500, err .. "\n"
    end
    return 200, "version " .. version .. "\n"
end

-- Returns status, body.
function _M.post(body, with_lock)
    local parsed, reason = _M.parse(body)
    if not parsed then
        return 400, reason .. "\n"
    end
    local version, err = with_lock(certificate_store.replace, parsed)
    if not version then
        ngx.log(ngx.ERR, "configuration: certificates: ", err)
        return 500, err .. "\n"
    end
    return 201, "version " .. version .. "\n"
end

-- The GET body: ids, stamps, hosts, default; never a PEM.
function _M.summary()
    return certificate_store.summary_json()
end

return _M
