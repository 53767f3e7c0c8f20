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
    if parsed.default then
        local ok, err = put(shared, "default", parsed.default)
        if not ok then
            return nil, err
        end
    else
        shared:delete("default")
    end
    delete_missing(shared, "hosts", "host:", wanted_hosts)
    delete_missing(shared, "ids", "cert:", wanted_ids)
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
