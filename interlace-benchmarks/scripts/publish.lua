-- wrk script: one durable single-event publish per request to /streams/orders, a random UUIDv4-shaped key each
-- (so every event is new: deduplication is looked up, never hit). Seeded per thread so threads do not collide.
-- An optional argument (wrk ... -s publish.lua URL -- 1000) sends that many such events per request instead, as a
-- JSON array: how kafka-publish.sh builds a backlog.
local counter = 0
local batch = 1

function setup(thread)
  thread:set("seed", math.random(1, 2147483647))
end

function init(args)
  batch = tonumber(args[1]) or 1
  math.randomseed(seed + os.time())
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

-- One format call of 16-bit random chunks: building the key a character at a time cost wrk more CPU than the server
-- spent on a publish's HTTP.
local random = math.random
local function uuid()
  return string.format("%04x%04x-%04x-4%03x-%x%03x-%04x%04x%04x", random(0, 65535), random(0, 65535),
    random(0, 65535), random(0, 4095), random(8, 11), random(0, 4095), random(0, 65535), random(0, 65535),
    random(0, 65535))
end

local function event()
  return '{"order_id":"' .. uuid() .. '","total":49.5}'
end

-- A single event's body always has the same length, so its request's head is built once.
local head = nil

function request()
  counter = counter + 1
  if batch == 1 then
    local body = event()
    if head == nil then
      local whole = wrk.format(nil, "/streams/orders", nil, body)
      head = string.sub(whole, 1, #whole - #body)
    end
    return head .. body
  end
  local events = {}
  for i = 1, batch do
    events[i] = event()
  end
  return wrk.format(nil, "/streams/orders", nil, "[" .. table.concat(events, ",") .. "]")
end

function done(summary, latency, requests)
  io.write(string.format("LATENCY p50_us=%d p99_us=%d p999_us=%d max_us=%d requests=%d non2xx=%d timeouts=%d\n",
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max, summary.requests,
    summary.errors.status, summary.errors.timeout))
end
