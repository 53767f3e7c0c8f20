-- The shared-dict layout that carries backends and route policies from the
-- configuration server (one worker) to every worker. Each backend's canonical
-- JSON sits under its own key, never in one giant document, with the store
-- version that last changed it as the entry's flags: one write per backend
-- (a separate stamp key doubled the writes of a push of 10,000). Workers
-- mark the backends a version changed and decode each on first use
-- (worker.lua, backends.lua). Route policies are one canonical JSON
-- (routes_api.lua): they change rarely and a worker rebuilds all of them at once.
--
--   version            store version, +1 per accepted POST or PATCH of backends
--                      or POST of routes (0 = nothing pushed since NGINX started)
--   names              "\n"-joined backend names, in the order posted (a PATCH
--                      appends new names and drops removed ones)
--   names_version      store version that last changed `names`
--   backend:<name>     canonical JSON of one backend; flags: the store version
--                      that last changed it (written only when the text changed)
--   changes:<v>        "\n"-joined names the PATCH of version v set or removed
--                      (none for a POST); the last CHANGE_LOG_SIZE versions are
--                      kept, so a worker a few versions behind marks those
--                      names only, not every backend
--   routes             canonical JSON of every route policy ({"routes":[...]})
--   routes_version     store version that last changed `routes`
--   pending            canonical JSON of the pending hosts ({"hosts":[...]}, pending_api.lua)
--   pending_version    store version that last changed `pending`
--   worker:<id>        "<pid> <applied version>" of worker slot <id>
local shared_dict = require("resty_ingress.shared_dict")
local concat = table.concat
local tonumber = tonumber
local ipairs = ipairs
local pairs = pairs
local next = next
local str_find = string.find
local str_sub = string.sub

local DICT_NAME = "resty_backends"
-- Versions of change log kept: at the controller's 50 pushes/s, ~5 s of them.
local CHANGE_LOG_SIZE = 256
local put = shared_dict.put
-- The change log entry of a push that changed no backend.
local NO_CHANGE = {}
local tostring = tostring

local _M = {}

local function dict()
    return shared_dict.get(DICT_NAME)
end
_M.dict = dict
_M.split_names = shared_dict.split_lines

local function backend_key(name)
    return "backend:" .. name
end

-- One backend's text, with `version` as its flags, only when the text changed.
local function put_backend(shared, name, json, version)
    local key = backend_key(name)
    if shared:get(key) == json then
        return true
    end
    local ok, err = shared:safe_set(key, json, 0, version)
    if not ok then
        return nil, "storing " .. key .. ": " .. tostring(err)
    end
    return true
end

-- The names list and its stamp, written together.
local function put_names(shared, text, version)
    local ok, err = put(shared, "names", text)
    if ok then
        ok, err = put(shared, "names_version", version)
    end
    return ok, err
end

-- Last writes of a push: its change log entry, then the version, so workers
-- that see the new version find everything under it. `changed`: the names a
-- PATCH touched, nil for a POST. An entry left by a push that failed before
-- it published this same version number is replaced or deleted here; without
-- an entry (a POST, or no room for it) workers mark every backend.
local function publish(shared, version, changed)
    local entry = "changes:" .. version
    if not (changed and put(shared, entry, concat(changed, "\n"))) then
        shared:delete(entry)
    end
    local ok, err = put(shared, "version", version)
    if not ok then
        return nil, err
    end
    shared:delete("changes:" .. (version - CHANGE_LOG_SIZE))
    return version
end

-- Names changed by the versions after `from` up to `to`, possibly repeated;
-- nil when the log does not cover all of them (a POST among them, a worker
-- further behind than the log keeps, or none applied yet).
function _M.changed_since(from, to)
    if from < 0 or to - from > CHANGE_LOG_SIZE then
        return nil
    end
    local shared = dict()
    local changed = {}
    for version = from + 1, to do
        local text = shared:get("changes:" .. version)
        if text == nil then
            return nil
        end
        local names = _M.split_names(text)
        for i = 1, #names do
            changed[#changed + 1] = names[i]
        end
    end
    return changed
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
        local ok, err = put_backend(shared, item.name, item.json, version)
        if not ok then
            return nil, err
        end
    end
    local old_text = shared:get("names") or ""
    local new_text = concat(new_names, "\n")
    if old_text ~= new_text then
        for _, name in ipairs(_M.split_names(old_text)) do
            if not wanted[name] then
                shared:delete(backend_key(name))
            end
        end
        local ok, err = put_names(shared, new_text, version)
        if not ok then
            return nil, err
        end
    end
    return publish(shared, version)
end

-- Writes a change: `set` (as parsed by validate.lua) added or replaced,
-- `remove` (names) dropped, everything else untouched. Same write order as
-- replace_backends, so a worker never sees a version before its backends.
-- Costs the size of the change, not of the store: the names list is searched
-- (one plain find per name) and rewritten only when a name comes or goes.
function _M.patch_backends(set, remove)
    local shared = dict()
    local version = (shared:get("version") or 0) + 1
    local names_text = shared:get("names") or ""
    local listed = "\n" .. names_text .. "\n"
    local function known(name)
        return str_find(listed, "\n" .. name .. "\n", 1, true) ~= nil
    end
    local changed = {}
    local added = {}
    for i = 1, #set do
        local item = set[i]
        local ok, err = put_backend(shared, item.name, item.json, version)
        if not ok then
            return nil, err
        end
        if not known(item.name) then
            added[#added + 1] = item.name
        end
        changed[#changed + 1] = item.name
    end
    local dropped = {}
    for i = 1, #remove do
        if known(remove[i]) then
            dropped[remove[i]] = true
            changed[#changed + 1] = remove[i]
        end
    end
    if #added > 0 or next(dropped) ~= nil then
        local kept = {}
        for _, name in ipairs(_M.split_names(names_text)) do
            if not dropped[name] then
                kept[#kept + 1] = name
            end
        end
        for i = 1, #added do
            kept[#kept + 1] = added[i]
        end
        local ok, err = put_names(shared, concat(kept, "\n"), version)
        if not ok then
            return nil, err
        end
    end
    -- After the new names list: a worker that already read it stops using these.
    for name in pairs(dropped) do
        shared:delete(backend_key(name))
    end
    return publish(shared, version, changed)
end

-- Writes the full set of route policies (routes_api.lua's canonical text).
-- One version for backends and routes: a worker that applies a version has
-- the backends its policies name, and GET /configuration/status covers both.
-- The change log entry is empty (no backend changed); an unchanged text
-- keeps routes_version, so workers keep their policies and route memo.
local function replace_text(name, text)
    local shared = dict()
    local version = (shared:get("version") or 0) + 1
    if shared:get(name) ~= text then
        local ok, err = put(shared, name, text)
        if ok then
            ok, err = put(shared, name .. "_version", version)
        end
        if not ok then
            return nil, err
        end
    end
    return publish(shared, version, NO_CHANGE)
end

function _M.replace_routes(text)
    return replace_text("routes", text)
end

-- Writes the full set of pending hosts (pending_api.lua's canonical text), as replace_routes.
function _M.replace_pending(text)
    return replace_text("pending", text)
end

-- The stored pending hosts' text, or nil before any POST.
function _M.pending()
    return dict():get("pending")
end

-- The stored route policies' text, or nil before any POST.
function _M.routes()
    return dict():get("routes")
end

-- The backends as loaded, as one JSON array (built from the stored strings);
-- only those named in `only` (a list) when given, in that order, absent names left out.
function _M.backends_json(only)
    local shared = dict()
    local names = only or _M.split_names(shared:get("names"))
    local parts = {}
    for i = 1, #names do
        parts[#parts + 1] = shared:get(backend_key(names[i]))
    end
    return "[" .. concat(parts, ",") .. "]"
end

-- One backend's canonical text and the store version that wrote it; nil when not stored.
function _M.backend(name)
    return dict():get(backend_key(name))
end

function _M.set_worker_status(id, pid, version)
    return put(dict(), "worker:" .. id, pid .. " " .. version)
end

-- { [pid string] = applied version } for worker slots 0..count-1, and the
-- version every one of those slots has applied (0 while a slot has none).
-- A slot is a live worker: NGINX restarts a dead one in the same slot, and a
-- new worker writes its slot before it serves (worker.lua, init_worker).
function _M.worker_status(count)
    local shared = dict()
    local workers = {}
    local applied
    for id = 0, count - 1 do
        local value = shared:get("worker:" .. id)
        local version = 0
        if value then
            local space = str_find(value, " ", 1, true)
            version = tonumber(str_sub(value, space + 1))
            workers[str_sub(value, 1, space - 1)] = version
        end
        if applied == nil or version < applied then
            applied = version
        end
    end
    return workers, applied or 0
end

return _M
