-- wrk's script for bench/service.py: GET /match for each line of a file of request paths in turn, and a JSON line
-- of the figures when done. Environment: LANDING_WRK_PATHS (the file: one path a line, already URL-encoded),
-- LANDING_WRK_ADDRS ("host:port,host:port": each thread's connections go to one address in turn, so that several
-- instances share the clients), LANDING_WRK_UNIQUE (optional, a run's own number above 0: each request's input
-- padded with leading whitespace spelling the run, the thread and the request's count in binary, which the matcher
-- strips: the same questions as the line's input, a text never asked before, so no result is cached).

local addresses = {}
local threads = 0

function setup(thread)
  if #addresses == 0 then
    for pair in string.gmatch(os.getenv("LANDING_WRK_ADDRS"), "[^,]+") do
      local host, port = string.match(pair, "^(.*):(%d+)$")
      table.insert(addresses, wrk.lookup(host, port)[1])
    end
  end
  thread.addr = addresses[threads % #addresses + 1]
  thread:set("first", threads)
  threads = threads + 1
end

local requests = {}
local turn = 0
local unique = tonumber(os.getenv("LANDING_WRK_UNIQUE") or "0")
local paths = {}
local sent = 0

-- n in binary, a bit a space or a tab (percent-encoded), as bench/service_client.py's _text pads.
local function bits(n)
  local out = ""
  repeat
    out = (n % 2 == 1 and "%09" or "%20") .. out
    n = math.floor(n / 2)
  until n == 0
  return out
end

function init(args)
  for path in io.lines(os.getenv("LANDING_WRK_PATHS")) do
    if unique > 0 then
      table.insert(paths, path)
    else
      table.insert(requests, wrk.format("GET", path))
    end
  end
  turn = (first or 0) * 7919 -- threads start at different inputs
end

function request()
  if unique > 0 then
    turn = turn % #paths + 1
    sent = sent + 1
    local path = paths[turn]
    local at = string.find(path, "q=", 1, true) + 1
    local pad = bits(unique) .. "%0A" .. bits(first or 0) .. "%0A" .. bits(sent) .. "%20"
    return wrk.format("GET", string.sub(path, 1, at) .. pad .. string.sub(path, at + 1))
  end
  turn = turn % #requests + 1
  return requests[turn]
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "non_2xx": %d, "connect": %d, "read": %d, "write": %d, "timeout": %d, ' ..
    '"p50_ms": %.2f, "p99_ms": %.2f}\n',
    summary.requests, summary.duration / 1e6, errors.status, errors.connect, errors.read, errors.write,
    errors.timeout, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
