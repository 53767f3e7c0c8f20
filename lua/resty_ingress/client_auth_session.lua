-- Client certificates and TLS session resumption. A resumed session (session
-- id or ticket, TLS 1.2 and 1.3) skips the certificate phase: OpenSSL runs no
-- certificate callback and no verification, and $ssl_client_verify and the
-- client's DNs are what the session recorded when it was made. So a session
-- verified under a host's old CA (or mode, or depth) would pass for up to
-- ssl_session_timeout after a push changed them, and in TLS 1.3, where the
-- session is not tied to the SNI, a session one host verified could be resumed
-- on another host that trusts another CA.
-- NGINX binds a session to its server with the session id context (a digest
-- of the server's certificates and client CA names): OpenSSL resumes a session
-- only under the context it was made in, else it runs a full handshake. Our
-- CAs are pushed, not in nginx.conf, so at client hello (before OpenSSL looks
-- the session up) this sets the connection's context for a name with client
-- auth to a digest of the name and the host's verification settings (CA PEM,
-- verify mode, depth). A session then resumes only for the same name under the
-- same settings; after any change its client makes a full handshake and the
-- certificate phase verifies again. match-cn and the error page apply per
-- request (client_auth.check) and need no binding. Names without client auth
-- keep NGINX's context, whose sessions never resume on a client-auth name.
-- NGINX's switch to the SNI's server (SSL_set_SSL_CTX) keeps a context set on
-- the connection: OpenSSL replaces only one still equal to the old context's.
local ffi = require("ffi")
local ssl = require("ngx.ssl")
local client_auth_state = require("resty_ingress.client_auth_state")

local ngx = ngx
local ngx_log = ngx.log
local ngx_exit = ngx.exit
local ngx_sha1_bin = ngx.sha1_bin
local ERR = ngx.ERR
local next = next
local tostring = tostring
local str_lower = string.lower
local str_find = string.find
local str_sub = string.sub
local byte = string.byte

ffi.cdef[[
int SSL_set_session_id_context(void *ssl, const unsigned char *sid_ctx, unsigned int sid_ctx_len);
]]
-- Resolved now: a data plane whose OpenSSL lacks it fails at init, not per handshake.
local set_session_id_context = ffi.C.SSL_set_session_id_context

local DOT = byte(".")

local _M = {}

-- Per worker: each host's settings digest under one state version.
local digests_version = -1
local digests = {}

-- The host entry of the state for a server name (exact, then one-label wildcard), as certificate.lookup.
local function host_of(hosts, name)
    local config = hosts[name]
    if config then
        return name, config
    end
    local dot = str_find(name, ".", 1, true)
    if dot and dot > 1 then
        local wildcard = "*" .. str_sub(name, dot)
        return wildcard, hosts[wildcard]
    end
    return nil, nil
end

local function settings_digest(current, version, host, config)
    if version ~= digests_version then
        digests = {}
        digests_version = version
    end
    local digest = digests[host]
    if not digest then
        local pem = current.cas[config.ca] or "-"
        digest = ngx_sha1_bin(host .. "\0" .. config.verify .. "\0" .. tostring(config.depth) .. "\0" .. pem)
        digests[host] = digest
    end
    return digest
end

-- Context of a name under its host's current settings: 20 bytes (OpenSSL takes at most 32).
function _M.context(server_name)
    if not server_name or server_name == "" then
        return nil
    end
    local current, version = client_auth_state.current()
    if next(current.hosts) == nil then
        return nil
    end
    local name = str_lower(server_name)
    if byte(name, -1) == DOT then
        name = str_sub(name, 1, -2)
    end
    local host, config = host_of(current.hosts, name)
    if not config then
        return nil
    end
    return ngx_sha1_bin(settings_digest(current, version, host, config) .. name)
end

-- Client hello (certificate.call): binds the sessions of this connection to its name's settings.
function _M.bind(server_name)
    local context = _M.context(server_name)
    if not context then
        return
    end
    local conn, err = ssl.get_req_ssl_pointer()
    if conn and set_session_id_context(conn, context, #context) == 1 then
        return
    end
    -- Unbound, an old session could resume with its old verification: refuse the handshake.
    ngx_log(ERR, "client-auth: cannot bind the TLS session of ", server_name, ": ", err or "OpenSSL refused")
    return ngx_exit(ngx.ERROR)
end

return _M
