-- wrk script: one durable single-event publish per request to /streams/orders, a random UUIDv4-shaped key each
-- (so every event is new: deduplication is looked up, never hit). Seeded per thread so threads do not collide.
-- An optional argument (wrk ... -s publish.lua URL -- 1000) sends that many such events per request instead, as a
-- JSON array: how kafka-publish.sh builds a backlog.
local counter = 0
local batch = 1
local template = "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx"

function setup(thread)
  thread:set("seed", math.random(1, 2147483647))
end

function init(args)
  batch = tonumber(args[1]) or 1
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

local function event()
  return '{"order_id":"' .. uuid() .. '","total":49.5}'
end

function request()
  counter = counter + 1
  if batch == 1 then
    return wrk.format(nil, "/streams/orders", nil, event())
  end
  local events = {}
  for i = 1, batch do
    events[i] = event()
  end
  return wrk.format(nil, "/streams/orders", nil, "[" .. table.concat(events, ",") .. "]")
end

function done(summary, latency, requests)
  io.write(string.format("LATENCY p50_us=%d p99_us=%d non2xx=%d\n", latency:percentile(50), latency:percentile(99),
    summary.errors.status))
end
