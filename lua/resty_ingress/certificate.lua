-- ssl_client_hello_by_lua of the HTTPS default server: picks the certificate
-- for a TLS handshake by SNI (lowercased, trailing dot stripped): exact host,
-- then the one-label wildcard, then the pushed default; with none of these
-- NGINX's placeholder certificate (the controller's self-signed default) stays.
-- Why the client-hello phase and not ssl_certificate_by_lua: the latter must
-- be configured in every server SNI may select, and each such server needs a
-- certificate, hence its own OpenSSL context, which made every reload with
-- many hosts slow. At client hello no server is selected yet; the other
-- servers have no context, so OpenSSL keeps the one (and the certificate)
-- chosen here. Parsed
-- certificates and keys are cached per worker by id and stamp, so a rotation
-- (new stamp) is parsed once per worker and nothing is parsed per handshake.
local ngx = ngx
local ssl = require("ngx.ssl")
local clienthello = require("ngx.ssl.clienthello")
local cjson = require("cjson.safe")
local lrucache = require("resty.lrucache")
local certificate_store = require("resty_ingress.certificate_store")
local client_auth_session = require("resty_ingress.client_auth_session")

local str_lower = string.lower
local str_find = string.find
local str_sub = string.sub
local byte = string.byte
local ngx_log = ngx.log
local ERR = ngx.ERR

local DOT = byte(".")
-- Bounded: at most this many parsed certificates per worker; misses re-parse.
local CACHE_SIZE = 2000

local _M = {}

local cache

local function parsed_cache()
    if not cache then
        cache = assert(lrucache.new(CACHE_SIZE))
    end
    return cache
end

-- The certificate id for a server name, or nil.
function _M.lookup(dict, server_name)
    if server_name and server_name ~= "" then
        local name = str_lower(server_name)
        if byte(name, -1) == DOT then
            name = str_sub(name, 1, -2)
        end
        local id = dict:get("host:" .. name)
        if id then
            return id
        end
        local dot = str_find(name, ".", 1, true)
        if dot and dot > 1 then
            id = dict:get("host:*" .. str_sub(name, dot))
            if id then
                return id
            end
        end
    end
    return dict:get("default")
end

-- Parsed cert chain and key for id at its current stamp (cached), or nil.
local function load(dict, id)
    local stamp = dict:get("stamp:" .. id)
    local entries = parsed_cache()
    local entry = entries:get(id)
    if entry and entry.stamp == stamp then
        return entry
    end
    local raw = dict:get("cert:" .. id)
    if not raw then
        return nil -- removed by a concurrent push
    end
    local data = cjson.decode(raw)
    local cert, cert_err = ssl.parse_pem_cert(data and data.cert or "")
    local key, key_err = ssl.parse_pem_priv_key(data and data.key or "")
    if not cert or not key then
        -- Never log the PEM: only which certificate and the parser's reason.
        ngx_log(ERR, "certificate ", id, " cannot be parsed: ", cert_err or key_err)
        return nil
    end
    entry = { stamp = stamp, cert = cert, key = key }
    entries:set(id, entry)
    return entry
end

-- Serves the certificate of server_name; also called by client_auth.lua in the
-- certificate phase of a server with client auth (its own context replaced this one's).
function _M.serve(server_name)
    local dict = certificate_store.dict()
    local id = _M.lookup(dict, server_name)
    if not id then
        return
    end
    local entry = load(dict, id)
    if not entry then
        return
    end
    local ok, err = ssl.clear_certs()
    if ok then
        ok, err = ssl.set_cert(entry.cert)
    end
    if ok then
        ok, err = ssl.set_priv_key(entry.key)
    end
    if not ok then
        ngx_log(ERR, "serving certificate ", id, ": ", err)
        return ngx.exit(ngx.ERROR)
    end
end

-- Client hello runs on every handshake, resumed ones too (the certificate phase does not):
-- where the sessions of a name with client certificates are bound (client_auth_session.lua).
function _M.call()
    local server_name = clienthello.get_client_hello_server_name()
    client_auth_session.bind(server_name)
    return _M.serve(server_name)
end

return _M
