-- Client certificates (auth-tls-*), per server: the controller pushes the CA
-- bundles and each host's mode with the certificates (client_auth_api.lua),
-- so a changed CA Secret, mode, depth, match-cn or error page is no reload.
-- Why two hooks:
--   handshake(host): ssl_certificate_by_lua of a server with client auth.
--     ngx.ssl.verify_client is refused at client hello (ngx_lua 0.10.28:
--     "API disabled in the current context"), and the certificate phase runs
--     only in the server SNI selected, which needs a context of its own (a
--     placeholder certificate): only servers with client auth pay for one.
--     Switching to it replaced the certificate client hello chose, so this
--     serves it again (certificate.lua) before asking for the client's.
--   check(host): rewrite_by_lua of the server's locations (rewrite, not
--     access: `satisfy any` never skips it). NGINX itself
--     checks nothing (no ssl_verify_client: the mode is dynamic), so this
--     answers as ingress-nginx's server would: 421 when the request's host is
--     not the server TLS was negotiated for, 495/496 (NGINX's 400 pages) or a
--     302 to auth-tls-error-page on a failed verification, 403 when the
--     subject does not match auth-tls-match-cn or the host's CA is missing.
local ssl = require("ngx.ssl")
local cjson = require("cjson.safe")
local lrucache = require("resty.lrucache")
local certificate = require("resty_ingress.certificate")
local client_auth_state = require("resty_ingress.client_auth_state")

local ngx = ngx
local ngx_var = ngx.var
local ngx_log = ngx.log
local ngx_exit = ngx.exit
local ngx_re_find = ngx.re.find
local ERR = ngx.ERR
local str_lower = string.lower
local str_find = string.find
local str_sub = string.sub
local byte = string.byte

local DOT = byte(".")
-- OpenSSL's texts of the errors NGINX's optional_no_ca lets through (ngx_ssl_verify_error_optional).
local OPTIONAL_ERRORS = {
    ["FAILED:self-signed certificate"] = true,
    ["FAILED:self-signed certificate in certificate chain"] = true,
    ["FAILED:unable to get issuer certificate"] = true,
    ["FAILED:unable to get local issuer certificate"] = true,
    ["FAILED:unable to verify the first certificate"] = true,
    ["FAILED:certificate not trusted"] = true,
}

local _M = {}

local state = client_auth_state.current

-- Per worker: parsed CA bundles.
local parsed_cas = assert(lrucache.new(200))

-- The parsed CA bundle `id` of the current state (cached by its PEM text).
local function ca_chain(current, id)
    local pem = current.cas[id]
    local entry = parsed_cas:get(id)
    if entry and entry.pem == pem then
        return entry.chain
    end
    local chain, err = ssl.parse_pem_cert(pem)
    if not chain then
        return nil, err
    end
    parsed_cas:set(id, { pem = pem, chain = chain })
    return chain
end

function _M.handshake(host)
    local server_name = ssl.server_name()
    certificate.serve(server_name)
    local current = state()
    local config = current.hosts[host]
    if not config or config.verify == "off" then
        return
    end
    if config.ca == cjson.null then
        return -- no CA: check() answers 403 for every request
    end
    -- optional_no_ca still names the CA (ingress-nginx sets ssl_client_certificate): its certificates verify.
    local chain, err = ca_chain(current, config.ca)
    if not chain then
        ngx_log(ERR, "client-auth: CA ", config.ca, " of ", host, ": ", err)
        return ngx_exit(ngx.ERROR)
    end
    local ok
    ok, err = ssl.verify_client(chain, config.depth, chain)
    if not ok then
        ngx_log(ERR, "client-auth: ", host, ": ", err)
        return ngx_exit(ngx.ERROR)
    end
end

-- True when the negotiated server name selects `host` (exact, or a one-label wildcard).
local function negotiated_for(host)
    local name = ngx_var.ssl_server_name
    if not name or name == "" then
        return false
    end
    name = str_lower(name)
    if byte(name, -1) == DOT then
        name = str_sub(name, 1, -2)
    end
    if name == host then
        return true
    end
    local dot = str_find(name, ".", 1, true)
    return byte(host, 1) == 42 and dot ~= nil and dot > 1 and str_sub(name, dot) == str_sub(host, 2)
end

local function refuse(config, code)
    if config.errorPage ~= nil and config.errorPage ~= cjson.null then
        return ngx.redirect(config.errorPage, 302)
    end
    return ngx_exit(code)
end

local function forbid(body)
    ngx.status = 403
    ngx.header["Content-Type"] = "text/plain"
    ngx.print(body)
    return ngx_exit(403)
end

function _M.check(host)
    -- Plain HTTP is not verified (ingress-nginx's ssl_verify_client binds TLS only); ssl-redirect sends it to HTTPS.
    if ngx_var.https ~= "on" then
        return
    end
    if not negotiated_for(host) then
        return ngx_exit(421)
    end
    local config = state().hosts[host]
    if not config or config.ca == cjson.null then
        return ngx_exit(403)
    end
    local verify = config.verify
    if verify ~= "off" then
        local result = ngx_var.ssl_client_verify
        if result == "NONE" then
            if verify == "on" then
                return refuse(config, 496)
            end
        elseif result ~= "SUCCESS" and not (verify == "optional_no_ca" and OPTIONAL_ERRORS[result]) then
            return refuse(config, 495)
        end
    end
    local pattern = config.matchCn
    if pattern ~= nil and pattern ~= cjson.null and not ngx_re_find(ngx_var.ssl_client_s_dn or "", pattern, "jo") then
        return forbid("client certificate unauthorized")
    end
end

return _M
