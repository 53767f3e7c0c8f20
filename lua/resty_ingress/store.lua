-- The shared-dict layout that carries backends from the configuration
-- server (one worker) to every worker. Each backend's canonical JSON sits
-- under its own key with the store version that last changed it, so a worker
-- decodes only the backends whose stamp moved, never one giant document.
--
--   version            store version, +1 per accepted POST or PATCH (0 = none yet)
--   names              "\n"-joined backend names, in the order posted (a PATCH
--                      appends new names and drops removed ones)
--   names_version      store version that last changed `names`
--   backend:<name>     canonical JSON of one backend
--   stamp:<name>       store version that last changed backend:<name>
--   worker:<id>        "<pid> <applied version>" of worker slot <id>
local ngx = ngx
local concat = table.concat
local tostring = tostring
local tonumber = tonumber
local ipairs = ipairs
local pairs = pairs
local str_find = string.find
local str_sub = string.sub

local DICT_NAME = "resty_backends"

local _M = {}

local function dict()
    local shared = ngx.shared[DICT_NAME]
    if not shared then
        error("lua_shared_dict " .. DICT_NAME .. " is not defined")
    end
    return shared
end
_M.dict = dict

function _M.split_names(text)
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

-- safe_set, never set: set would evict other backends when the dict is full.
local function put(shared, key, value)
    local ok, err = shared:safe_set(key, value)
    if not ok then
        return nil, "storing " .. key .. ": " .. tostring(err)
    end
    return true
end

function _M.version()
    return dict():get("version") or 0
end

-- Writes the full set. parsed: array of { name, json } (see validate.lua).
-- Order of writes matters: backends first, the names list next, the version
-- last, so a worker that sees the new version also sees everything under it.
function _M.replace_backends(parsed)
    local shared = dict()
    local version = (shared:get("version") or 0) + 1
    local new_names = {}
    local wanted = {}
    for i = 1, #parsed do
        local item = parsed[i]
        new_names[i] = item.name
        wanted[item.name] = true
        if shared:get("backend:" .. item.name) ~= item.json then
            local ok, err = put(shared, "backend:" .. item.name, item.json)
            if ok then
                ok, err = put(shared, "stamp:" .. item.name, version)
            end
            if not ok then
                return nil, err
            end
        end
    end
    local old_text = shared:get("names") or ""
    local new_text = concat(new_names, "\n")
    if old_text ~= new_text then
        for _, name in ipairs(_M.split_names(old_text)) do
            if not wanted[name] then
                shared:delete("backend:" .. name)
                shared:delete("stamp:" .. name)
            end
        end
        local ok, err = put(shared, "names", new_text)
        if ok then
            ok, err = put(shared, "names_version", version)
        end
        if not ok then
            return nil, err
        end
    end
    local ok, err = put(shared, "version", version)
    if not ok then
        return nil, err
    end
    return version
end

-- Writes a change: `set` (as parsed by validate.lua) added or replaced,
-- `remove` (names) dropped, everything else untouched. Same write order as
-- replace_backends, so a worker never sees a version before its backends.
function _M.patch_backends(set, remove)
    local shared = dict()
    local version = (shared:get("version") or 0) + 1
    local names = _M.split_names(shared:get("names"))
    local known = {}
    for i = 1, #names do
        known[names[i]] = true
    end
    local names_changed = false
    for i = 1, #set do
        local item = set[i]
        if shared:get("backend:" .. item.name) ~= item.json then
            local ok, err = put(shared, "backend:" .. item.name, item.json)
            if ok then
                ok, err = put(shared, "stamp:" .. item.name, version)
            end
            if not ok then
                return nil, err
            end
        end
        if not known[item.name] then
            known[item.name] = true
            names[#names + 1] = item.name
            names_changed = true
        end
    end
    local dropped = {}
    for i = 1, #remove do
        if known[remove[i]] then
            dropped[remove[i]] = true
            names_changed = true
        end
    end
    if names_changed then
        local kept = {}
        for i = 1, #names do
            if not dropped[names[i]] then
                kept[#kept + 1] = names[i]
            end
        end
        local ok, err = put(shared, "names", concat(kept, "\n"))
        if ok then
            ok, err = put(shared, "names_version", version)
        end
        if not ok then
            return nil, err
        end
    end
    -- After the new names list: a worker that already read it stops using these.
    for name in pairs(dropped) do
        shared:delete("backend:" .. name)
        shared:delete("stamp:" .. name)
    end
    local ok, err = put(shared, "version", version)
    if not ok then
        return nil, err
    end
    return version
end

-- The backends as loaded, as one JSON array (built from the stored strings).
function _M.backends_json()
    local shared = dict()
    local names = _M.split_names(shared:get("names"))
    local parts = {}
    for i = 1, #names do
        parts[#parts + 1] = shared:get("backend:" .. names[i])
    end
    return "[" .. concat(parts, ",") .. "]"
end

function _M.set_worker_status(id, pid, version)
    return put(dict(), "worker:" .. id, pid .. " " .. version)
end

-- { [pid string] = applied version } for worker slots 0..count-1.
function _M.worker_status(count)
    local shared = dict()
    local workers = {}
    for id = 0, count - 1 do
        local value = shared:get("worker:" .. id)
        if value then
            local space = str_find(value, " ", 1, true)
            workers[str_sub(value, 1, space - 1)] = tonumber(str_sub(value, space + 1))
        end
    end
    return workers
end

return _M
