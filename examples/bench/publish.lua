-- wrk script: one durable single-event publish per request to /streams/orders, a random UUIDv4-shaped key each
-- (so every event is new: deduplication is looked up, never hit). Seeded per thread so threads do not collide.
local counter = 0
local template = "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx"

function setup(thread)
  thread:set("seed", math.random(1, 2147483647))
end

function init(args)
  math.randomseed(seed + os.time())
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

local function uuid()
  return (string.gsub(template, "[xy]", function(c)
    local v = (c == "x") and math.random(0, 15) or math.random(8, 11)
    return string.format("%x", v)
  end))
end

function request()
  counter = counter + 1
  local body = '{"order_id":"' .. uuid() .. '","total":49.5}'
  return wrk.format(nil, "/streams/orders", nil, body)
end

function done(summary, latency, requests)
  io.write(string.format("LATENCY p50_us=%d p99_us=%d non2xx=%d\n", latency:percentile(50), latency:percentile(99),
    summary.errors.status))
end
