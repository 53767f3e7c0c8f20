-- Appended to report.lua when several hosts are loaded at once: each request
-- takes the next Host header from the script arguments.
local requests_by_host = {}
local next_index = 0

function init(args)
  for i = 1, #args do
    requests_by_host[i] = wrk.format("GET", wrk.path, { Host = args[i] })
  end
end

function request()
  next_index = next_index % #requests_by_host + 1
  return requests_by_host[next_index]
end
