-- The body of POST /configuration/client-auth (called by configuration.lua):
-- the FULL client-certificate state, pushed with the certificates (no reload),
--   {"cas":{"<id>":"<PEM bundle>"...},
--    "hosts":{"<server name>":{"ca":"<id>"|null,"verify":"on"|"off"|"optional"|"optional_no_ca",
--                              "depth":D,"matchCn":"<PCRE>"|null,"errorPage":"<url>"|null}...}}
-- checked strictly (400 + reason, nothing stored): no unknown field, every CA
-- parses as PEM certificates, a host names only a CA of the body, match-cn is
-- a pattern PCRE compiles, the error page has ingress-nginx's redirect grammar.
-- "ca":null is a host whose CA Secret is missing or holds no CA: it answers 403
-- (ingress-nginx's AuthTLSError), never serves without verification.
local ssl = require("ngx.ssl")
local json_body = require("resty_ingress.json_body")

local type = type
local pairs = pairs
local next = next
local str_find = string.find
local str_format = string.format
local math_floor = math.floor
local ngx_re_find = ngx.re.find

local null = json_body.null

local MAX_ID_LEN = 253
local MAX_HOST_LEN = 253
local MAX_PEM_LEN = 65536
local MAX_PATTERN_LEN = 1024
local MAX_DEPTH = 100
local VERIFY = { on = true, off = true, optional = true, optional_no_ca = true }
local HOST_FIELDS = { ca = true, verify = true, depth = true, matchCn = true, errorPage = true }
-- ingress-nginx's redirectRegex for auth-tls-error-page (a named location, or an URL of these characters).
local ERROR_PAGE = [[^(@[A-Za-z0-9_-]+|((https?://)?[A-Za-z0-9\-.]+(:\d+)?)?(/[A-Za-z0-9\-_.]+)*/?)$]]

local _M = {}

-- Empty state: no host asks for a client certificate.
_M.EMPTY = '{"cas":{},"hosts":{}}'

local function optional_string(value, max)
    if value == nil or value == null then
        return true
    end
    return type(value) == "string" and #value > 0 and #value <= max and not str_find(value, "%c")
end

local function check_host(name, host, cas)
    if type(name) ~= "string" or #name == 0 or #name > MAX_HOST_LEN or not str_find(name, "^[%w%.%*_-]+$") then
        return nil, "a host name must be 1..253 of [A-Za-z0-9._*-]"
    end
    if type(host) ~= "table" then
        return nil, str_format("host %s: expected an object", name)
    end
    for key in pairs(host) do
        if not HOST_FIELDS[key] then
            return nil, str_format("host %s: unknown field", name)
        end
    end
    if host.ca ~= null and (type(host.ca) ~= "string" or not cas[host.ca]) then
        return nil, str_format("host %s: ca names no CA of the body", name)
    end
    if not VERIFY[host.verify] then
        return nil, str_format("host %s: verify must be on, off, optional or optional_no_ca", name)
    end
    local depth = host.depth
    if type(depth) ~= "number" or depth ~= math_floor(depth) or depth < 0 or depth > MAX_DEPTH then
        return nil, str_format("host %s: depth must be an integer 0..%d", name, MAX_DEPTH)
    end
    if not optional_string(host.matchCn, MAX_PATTERN_LEN) then
        return nil, str_format("host %s: matchCn must be null or 1..%d bytes without control characters",
            name, MAX_PATTERN_LEN)
    end
    if host.matchCn ~= nil and host.matchCn ~= null then
        local _, _, re_err = ngx_re_find("", host.matchCn, "jo")
        if re_err then
            return nil, str_format("host %s: matchCn does not compile", name)
        end
    end
    if not optional_string(host.errorPage, 2048)
        or (host.errorPage ~= nil and host.errorPage ~= null and not ngx_re_find(host.errorPage, ERROR_PAGE, "jo")) then
        return nil, str_format("host %s: errorPage is not a redirect target", name)
    end
    return true
end

-- Returns the decoded state, or nil and a reason fit for a 400 answer (never PEM content).
function _M.parse(body)
    local doc, err = json_body.decode_table(body, "{", "expected a JSON object")
    if not doc then
        return nil, "client-auth: " .. err
    end
    for key in pairs(doc) do
        if key ~= "cas" and key ~= "hosts" then
            return nil, "client-auth: unknown field"
        end
    end
    local cas, hosts = doc.cas, doc.hosts
    if type(cas) ~= "table" or type(hosts) ~= "table" or cas[1] ~= nil or hosts[1] ~= nil then
        return nil, "client-auth: cas and hosts must be objects"
    end
    for id, pem in pairs(cas) do
        if type(id) ~= "string" or #id == 0 or #id > MAX_ID_LEN or not str_find(id, "^[%w%./_-]+$") then
            return nil, "client-auth: a CA id must be 1..253 of [A-Za-z0-9./_-]"
        end
        if type(pem) ~= "string" or #pem > MAX_PEM_LEN or not ssl.parse_pem_cert(pem) then
            return nil, str_format("client-auth: CA %s is not a PEM certificate bundle", id)
        end
    end
    for name, host in pairs(hosts) do
        local ok, reason = check_host(name, host, cas)
        if not ok then
            return nil, "client-auth: " .. reason
        end
    end
    return { body = next(cas) == nil and next(hosts) == nil and _M.EMPTY or body }
end

return _M
