-- The affinity cookie as ingress-nginx v1.15.1 writes it (its sticky.lua
-- through lua-resty-cookie): `<name>=<key>|<backend key>` then Expires,
-- Max-Age, Domain, Path, Secure, HttpOnly, SameSite in that order. The key is
-- a random token (balanced) or a salted MD5 of the endpoint (persistent),
-- never an address. Written in the balancer phase, as there.
local ngx = ngx
local cookie_time = ngx.cookie_time
local ngx_time = ngx.time
local str_find = string.find
local str_gsub = string.gsub
local str_match = string.match

local var = ngx.var

local _M = {}

-- lua-resty-cookie writes SameSite only with one of these exact spellings.
local SAME_SITE = { None = true, Lax = true, Strict = true }

-- User agents known to reject SameSite=None (Chromium's list of incompatible
-- clients): with session-cookie-conditional-samesite-none they get no SameSite.
local function rejects_same_site_none(agent)
    if not agent then
        return false
    end
    if str_find(agent, "Chrome/[456]") or str_find(agent, "CPU iPhone OS 12", 1, true)
       or str_find(agent, "iPad; CPU OS 12", 1, true) then
        return true
    end
    return str_find(agent, "Macintosh", 1, true) ~= nil and str_find(agent, "Intel Mac OS X 10_14", 1, true) ~= nil
           and str_find(agent, "Safari", 1, true) ~= nil and not str_find(agent, "Chrome", 1, true)
end
_M.rejects_same_site_none = rejects_same_site_none

-- The settings of a pushed affinity (DynamicBackend.affinity, nulls as nil):
-- the parts of the header that do not change per request.
function _M.settings(affinity, null)
    local function value(v)
        if v == null then
            return nil
        end
        return v
    end
    local same_site = value(affinity.sameSite)
    return {
        name = affinity.cookie,
        path = value(affinity.path),
        expires = value(affinity.expires),
        domain = value(affinity.domain) and "; Domain=" .. affinity.domain or "",
        max_age = value(affinity.maxAge) and "; Max-Age=" .. affinity.maxAge or "",
        secure = affinity.secure == true,
        same_site = SAME_SITE[same_site] and "; SameSite=" .. same_site or "",
        same_site_none = same_site == "None" and affinity.conditionalSameSiteNone == true,
    }
end

-- The path of a route key ("<flags> <backend> <host> <namespace> <ingress> <service> <path>"),
-- with the backtick that stands for "$" in a regex path turned back.
function _M.route_path(key)
    local path = str_match(key, "^%S+ %S+ %S+ %S+ %S+ %S+ (%S+)")
    return path and (str_gsub(path, "`", "$"))
end

-- Sets the cookie: `value` is "<key>|<backend key>", path the location's unless configured.
function _M.set(cookie, value, path)
    local header = cookie.name .. "=" .. value
    if cookie.expires then
        header = header .. "; Expires=" .. cookie_time(ngx_time() + cookie.expires)
    end
    header = header .. cookie.max_age .. cookie.domain .. "; Path=" .. (cookie.path or path)
    if cookie.secure or var.https == "on" then
        header = header .. "; Secure"
    end
    header = header .. "; HttpOnly"
    if cookie.same_site_none and rejects_same_site_none(var.http_user_agent) then
        return _M.write(header)
    end
    return _M.write(header .. cookie.same_site)
end

-- One Set-Cookie of ours per response: a retry that picks again replaces the
-- first try's (the upstream's own Set-Cookie headers are added after the balancer).
function _M.write(header)
    ngx.header["Set-Cookie"] = header
end

return _M
