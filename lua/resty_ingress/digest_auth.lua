-- HTTP Digest authentication (RFC 7616 with MD5, RFC 2617's qop "auth"), the
-- check ingress-nginx's auth_digest module made: users are htdigest HA1
-- values, MD5(user:realm:password). Nonces are stateless and unforgeable:
-- "<expiry, 8 hex><unique, 16 hex><HMAC-SHA1 of both under a key drawn when
-- NGINX loads this module>", valid NONCE_TTL seconds (a reload draws a new key:
-- clients get `stale=true` and retry without asking the user). Each
-- (nonce, nc) pair is accepted once, remembered in the shared dict
-- resty_auth_nonces until its nonce expires: replays are refused and the
-- memory is bounded by the dict (safe_add: when it is full, requests are
-- refused, never let in).
local password = require("resty_ingress.password")
local shared_dict = require("resty_ingress.shared_dict")

local ngx = ngx
local md5 = ngx.md5
local hmac_sha1 = ngx.hmac_sha1
local encode_base64 = ngx.encode_base64
local same = password.same
local find = string.find
local sub = string.sub
local lower = string.lower
local format = string.format
local tonumber = tonumber
local io_open = io.open

local NONCE_TTL = 300
local NONCE_DICT = "resty_auth_nonces"

local _M = { NONCE_TTL = NONCE_TTL }

local function random_key()
    local file = io_open("/dev/urandom", "rb")
    if file then
        local key = file:read(32)
        file:close()
        if key and #key == 32 then
            return key
        end
    end
    -- Not a secret worth the name, but still unique per load: only forging nonces gets easier.
    return tostring(ngx.now()) .. tostring(math.random()) .. tostring({})
end

-- Drawn in the master (init_by_lua loads every module): every worker shares it.
local KEY = random_key()
local counter = 0

local function mac(body)
    return (encode_base64(hmac_sha1(KEY, body)):gsub("=", ""))
end

function _M.new_nonce(now)
    counter = counter + 1
    local expiry = (now or ngx.time()) + NONCE_TTL
    local body = format("%08x%08x%08x", expiry, ngx.worker.pid() % 0x100000000, counter % 0x100000000)
    return body .. mac(body)
end

-- "ok", "stale" (well formed and signed, but expired) or nil (not ours).
local function nonce_state(nonce, now)
    if #nonce ~= 24 + 27 or not find(nonce, "^%x+", 1) then
        return nil
    end
    local body = sub(nonce, 1, 24)
    if not same(sub(nonce, 25), mac(body)) then
        return nil
    end
    local expiry = tonumber(sub(body, 1, 8), 16)
    if not expiry or expiry < now then
        return "stale"
    end
    return "ok", expiry
end

-- The parameters of `Digest k=v, k="v", ...`; nil when malformed (a backslash escape, a repeated name).
local function parse(header)
    if #header < 7 or lower(sub(header, 1, 7)) ~= "digest " then
        return nil
    end
    local params = {}
    local pos = 8
    local length = #header
    while pos <= length do
        local _, stop, name = find(header, "^[%s,]*([%w%-]+)%s*=%s*", pos)
        if not stop then
            if find(header, "^[%s,]*$", pos) then
                break
            end
            return nil
        end
        name = lower(name)
        if params[name] then
            return nil
        end
        pos = stop + 1
        local value
        if sub(header, pos, pos) == '"' then
            local close = find(header, '"', pos + 1, true)
            if not close then
                return nil
            end
            value = sub(header, pos + 1, close - 1)
            if find(value, "\\", 1, true) then
                return nil
            end
            pos = close + 1
        else
            local _, last = find(header, "^[^%s,]*", pos)
            value = sub(header, pos, last)
            pos = last + 1
        end
        params[name] = value
    end
    return params
end

local function challenge(set, stale)
    ngx.header["WWW-Authenticate"] = format('Digest realm="%s", nonce="%s", qop="auth", algorithm=MD5%s',
        set.realm, _M.new_nonce(), stale and ", stale=true" or "")
    return ngx.exit(ngx.HTTP_UNAUTHORIZED)
end

-- A digest user of the length of a real one, for unknown users: the same work, then a refusal.
local NO_USER = "00000000000000000000000000000000"

-- Lets the request on or answers 401 with a new challenge.
function _M.check(set, header)
    local params = header and parse(header)
    if not params then
        return challenge(set, false)
    end
    local user, nonce, uri, response = params.username, params.nonce, params.uri, params.response
    local nc, cnonce, qop = params.nc, params.cnonce, params.qop
    if not (user and nonce and uri and response and nc and cnonce and qop) or params.realm ~= set.realm
        or qop ~= "auth" or (params.algorithm and lower(params.algorithm) ~= "md5")
        or not find(nc, "^%x%x%x%x%x%x%x%x$") or uri ~= ngx.var.request_uri then
        return challenge(set, false)
    end
    local now = ngx.time()
    local state, expiry = nonce_state(nonce, now)
    if not state then
        return challenge(set, false)
    end
    local ha1 = set.users[user]
    local known = ha1 ~= nil and ha1 ~= ""
    local ha2 = md5(ngx.req.get_method() .. ":" .. uri)
    local expected = md5((known and ha1 or NO_USER) .. ":" .. nonce .. ":" .. nc .. ":" .. cnonce
        .. ":" .. qop .. ":" .. ha2)
    if not (same(expected, lower(response)) and known) then
        return challenge(set, false)
    end
    if state == "stale" then
        return challenge(set, true)
    end
    local ok = shared_dict.get(NONCE_DICT):safe_add(nonce .. nc, true, expiry - now + 1)
    if not ok then
        -- Seen before (a replay), or the dict is full: no way in.
        return challenge(set, false)
    end
    ngx.req.clear_header("Authorization")
end

return _M
