-- The shared-dict layout that carries certificates from the configuration
-- server to every worker's TLS handshakes (dict resty_certificates). A
-- certificate and its key sit in ONE value so a handshake never pairs a new
-- certificate with an old key mid-push; its stamp moves only when it changed,
-- so workers re-parse only rotated certificates.
--
--   version        +1 per accepted POST (0 = nothing pushed since start)
--   cert:<id>      JSON {"cert":PEM chain,"key":PEM key}
--   stamp:<id>     store version that last changed cert:<id>
--   host:<host>    certificate id for an exact host or a "*.domain" wildcard
--   ids / hosts    "\n"-joined lists of what is stored (to delete leftovers)
--   default        id served for unknown SNI; absent = NGINX's placeholder
local cjson = require("cjson.safe")
local shared_dict = require("resty_ingress.shared_dict")

local concat = table.concat
local ipairs = ipairs
local sort = table.sort

local DICT_NAME = "resty_certificates"
local put = shared_dict.put
local split_lines = shared_dict.split_lines

local _M = {}

function _M.dict()
    return shared_dict.get(DICT_NAME)
end

local function delete_missing(shared, list_key, prefix, wanted)
    for _, name in ipairs(split_lines(shared:get(list_key))) do
        if not wanted[name] then
            if prefix == "cert:" then
                shared_dict.delete_stamped(shared, prefix, name)
            else
                shared:delete(prefix .. name)
            end
        end
    end
end

-- The default certificate: id, or none (NGINX's placeholder) when nil.
local function put_default(shared, id)
    if id then
        return put(shared, "default", id)
    end
    shared:delete("default")
    return true
end

-- The last writes of a push: the lists, then the version workers watch.
local function finish(shared, hosts, ids, version)
    local ok, err = put(shared, "hosts", concat(hosts, "\n"))
    if ok then
        ok, err = put(shared, "ids", concat(ids, "\n"))
    end
    if ok then
        ok, err = put(shared, "version", version)
    end
    if not ok then
        return nil, err
    end
    return version
end

-- parsed: { certificates = { {id, json} ... }, hosts = { {host, id} ... }, default = id|nil }
-- Writes certificates, then hosts, then the default; removes what is gone
-- (hosts before the certificates they named); the version goes last.
function _M.replace(parsed)
    local shared = _M.dict()
    local version = (shared:get("version") or 0) + 1
    local ids, wanted_ids = {}, {}
    for i, item in ipairs(parsed.certificates) do
        ids[i] = item.id
        wanted_ids[item.id] = true
        local ok, err = shared_dict.put_stamped(shared, "cert:", item.id, item.json, version)
        if not ok then
            return nil, err
        end
    end
    local hosts, wanted_hosts = {}, {}
    for i, item in ipairs(parsed.hosts) do
        hosts[i] = item.host
        wanted_hosts[item.host] = true
        local ok, err = put(shared, "host:" .. item.host, item.id)
        if not ok then
            return nil, err
        end
    end
    local ok, err = put_default(shared, parsed.default)
    if not ok then
        return nil, err
    end
    delete_missing(shared, "hosts", "host:", wanted_hosts)
    delete_missing(shared, "ids", "cert:", wanted_ids)
    return finish(shared, hosts, ids, version)
end

-- The id a host maps to once `patch` applies: its new mapping, nil when it is removed.
local function host_after(patch_hosts, host, stored)
    local change = patch_hosts[host]
    if change == nil then
        return stored
    end
    return change.id
end

-- Refuses a PATCH that would leave a host or the default naming a certificate that is not
-- stored; returns true or false, reason. O(hosts stored) only when certificates are removed.
function _M.check_patch(patch)
    local shared = _M.dict()
    local function available(id)
        return patch.set_ids[id] or (not patch.removed[id] and shared:get("cert:" .. id) ~= nil)
    end
    local by_host = {}
    for _, item in ipairs(patch.hosts) do
        by_host[item.host] = item
        if item.id and not available(item.id) then
            return false, "hosts[" .. item.host .. "] names certificate " .. item.id .. ", which is not stored"
        end
    end
    local default = patch.default
    if not patch.default_given then
        default = shared:get("default")
    end
    if default and not available(default) then
        return false, "defaultCertificate names certificate " .. default .. ", which is not stored"
    end
    if #patch.remove > 0 then
        for _, host in ipairs(split_lines(shared:get("hosts"))) do
            local id = host_after(by_host, host, shared:get("host:" .. host))
            if id and patch.removed[id] then
                return false, "certificate " .. id .. " is still used by host " .. host
            end
        end
    end
    return true
end

local function list_after(current, added, dropped)
    local list, listed = {}, {}
    for _, name in ipairs(current) do
        if not dropped[name] and not listed[name] then
            list[#list + 1] = name
            listed[name] = true
        end
    end
    for _, name in ipairs(added) do
        if not listed[name] then
            list[#list + 1] = name
            listed[name] = true
        end
    end
    return list
end

-- patch (checked by check_patch): sets certificates, then hosts and the default, then drops
-- removed hosts and certificates; the version goes last.
function _M.patch(patch)
    local shared = _M.dict()
    local version = (shared:get("version") or 0) + 1
    local set_ids = {}
    for i, item in ipairs(patch.set) do
        set_ids[i] = item.id
        local ok, err = shared_dict.put_stamped(shared, "cert:", item.id, item.json, version)
        if not ok then
            return nil, err
        end
    end
    local added_hosts, dropped_hosts = {}, {}
    for _, item in ipairs(patch.hosts) do
        if item.id then
            added_hosts[#added_hosts + 1] = item.host
            local ok, err = put(shared, "host:" .. item.host, item.id)
            if not ok then
                return nil, err
            end
        else
            dropped_hosts[item.host] = true
            shared:delete("host:" .. item.host)
        end
    end
    if patch.default_given then
        local ok, err = put_default(shared, patch.default)
        if not ok then
            return nil, err
        end
    end
    for _, id in ipairs(patch.remove) do
        shared_dict.delete_stamped(shared, "cert:", id)
    end
    local hosts = list_after(split_lines(shared:get("hosts")), added_hosts, dropped_hosts)
    sort(hosts)
    return finish(shared, hosts, list_after(split_lines(shared:get("ids")), set_ids, patch.removed), version)
end

-- JSON array of encoded items; built by hand because an empty Lua table
-- would encode as {} (Debian's lua-cjson has no array metatable).
local function json_array(items)
    local parts = {}
    for i = 1, #items do
        parts[i] = cjson.encode(items[i])
    end
    return "[" .. concat(parts, ",") .. "]"
end

-- What is loaded, WITHOUT any PEM: ids with their stamps, the host map, the default.
function _M.summary_json()
    local shared = _M.dict()
    local certificates, hosts = {}, {}
    for _, id in ipairs(split_lines(shared:get("ids"))) do
        certificates[#certificates + 1] = { id = id, stamp = shared:get("stamp:" .. id) }
    end
    for _, host in ipairs(split_lines(shared:get("hosts"))) do
        hosts[#hosts + 1] = { host = host, certificate = shared:get("host:" .. host) }
    end
    return '{"version":' .. (shared:get("version") or 0)
        .. ',"certificates":' .. json_array(certificates)
        .. ',"hosts":' .. json_array(hosts)
        .. ',"defaultCertificate":' .. cjson.encode(shared:get("default") or cjson.null) .. "}"
end

return _M
