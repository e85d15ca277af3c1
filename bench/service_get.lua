-- wrk's script for bench/service.py: GET /match for each line of a file of request paths in turn, and a JSON line
-- of the figures when done. Environment: LANDING_WRK_PATHS (the file: one path a line, already URL-encoded),
-- LANDING_WRK_ADDRS ("host:port,host:port": each thread's connections go to one address in turn, so that several
-- instances share the clients).

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

function init(args)
  for path in io.lines(os.getenv("LANDING_WRK_PATHS")) do
    table.insert(requests, wrk.format("GET", path))
  end
  turn = (first or 0) * 7919 -- threads start at different inputs
end

function request()
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
