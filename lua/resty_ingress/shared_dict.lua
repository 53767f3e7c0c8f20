-- What the two versioned stores (store.lua for backends, certificate_store.lua
-- for certificates) share: finding their dict, writing without eviction,
-- and the "\n"-joined name lists they keep to find leftovers; and, for the
-- certificates, writing a value together with the store version that last
-- changed it (store.lua keeps that version in each backend's flags instead).
local ngx = ngx
local tostring = tostring
local str_find = string.find
local str_sub = string.sub

local _M = {}

-- The named lua_shared_dict; raises when nginx.conf lacks it (a template bug, not a run-time failure).
function _M.get(name)
    local shared = ngx.shared[name]
    if not shared then
        error("lua_shared_dict " .. name .. " is not defined")
    end
    return shared
end

-- safe_set, never set: set would silently evict other entries when the dict is full.
function _M.put(shared, key, value)
    local ok, err = shared:safe_set(key, value)
    if not ok then
        return nil, "storing " .. key .. ": " .. tostring(err)
    end
    return true
end

-- Writes `value` under prefix..name and the store `version` under "stamp:"..name,
-- only when the value changed: workers re-read an entry only when its stamp moved.
function _M.put_stamped(shared, prefix, name, value, version)
    if shared:get(prefix .. name) == value then
        return true
    end
    local ok, err = _M.put(shared, prefix .. name, value)
    if ok then
        ok, err = _M.put(shared, "stamp:" .. name, version)
    end
    return ok, err
end

-- Drops an entry written by put_stamped.
function _M.delete_stamped(shared, prefix, name)
    shared:delete(prefix .. name)
    shared:delete("stamp:" .. name)
end

-- "a\nb" -> { "a", "b" }; nil or "" -> {}.
function _M.split_lines(text)
    local names = {}
    if not text or text == "" then
        return names
    end
    local start = 1
    while true do
        local stop = str_find(text, "\n", start, true)
        if not stop then
            names[#names + 1] = str_sub(text, start)
            return names
        end
        names[#names + 1] = str_sub(text, start, stop - 1)
        start = stop + 1
    end
end

return _M
