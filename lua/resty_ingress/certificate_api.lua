-- POST/GET /configuration/certificates (called by configuration.lua).
-- POST body: {"certificates":[{"id","cert","key"}...],"hosts":{"<host>":"<id>"},
-- "defaultCertificate":"<id>"|null}, the FULL set. Every PEM is parsed here,
-- so a bad one is a 400 and the previous state stays. Reasons name ids and
-- hosts, never PEM content. GET answers the summary: no PEM, no key.
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
