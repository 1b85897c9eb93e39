-- Shared by the wrk publish scripts (publish.lua, publish-partition.lua): the per-thread random seed, the POST of
-- JSON, a random UUIDv4-shaped key, a single-event request whose head is built once, and the LATENCY line that
-- tail-latency.sh and kafka-scale.sh read. Loaded with require from the scripts' folder.
local lib = {}

-- Seeded per thread so threads do not collide.
function lib.setup(thread)
  thread:set("seed", math.random(1, 2147483647))
end

-- Every request is a POST of JSON; the thread's random numbers start from its seed.
function lib.init()
  math.randomseed(seed + os.time())
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

-- One format call of 16-bit random chunks: building the key a character at a time cost wrk more CPU than the server
-- spent on a publish's HTTP.
local random = math.random
function lib.uuid()
  return string.format("%04x%04x-%04x-4%03x-%x%03x-%04x%04x%04x", random(0, 65535), random(0, 65535),
    random(0, 65535), random(0, 4095), random(8, 11), random(0, 4095), random(0, 65535), random(0, 65535),
    random(0, 65535))
end

-- The order with key order_id, as the request body's JSON.
function lib.order(order_id)
  return '{"order_id":"' .. order_id .. '","total":49.5}'
end

-- A single event's body always has the same length, so its request's head is built once.
local head = nil
function lib.single(body)
  if head == nil then
    local whole = wrk.format(nil, "/streams/orders", nil, body)
    head = string.sub(whole, 1, #whole - #body)
  end
  return head .. body
end

function lib.done(summary, latency, requests)
  io.write(string.format("LATENCY p50_us=%d p99_us=%d p999_us=%d max_us=%d requests=%d non2xx=%d timeouts=%d\n",
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max, summary.requests,
    summary.errors.status, summary.errors.timeout))
end

return lib
