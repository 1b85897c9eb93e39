-- wrk script: one durable single-event publish per request to /streams/orders, a random UUIDv4-shaped key each
-- (so every event is new: deduplication is looked up, never hit). Seeded per thread so threads do not collide.
-- An optional argument (wrk ... -s publish.lua URL -- 1000) sends that many such events per request instead, as a
-- JSON array: how kafka-publish.sh builds a backlog.
package.path = (debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "?.lua;" .. package.path
local publish = require("publish-lib")
local batch = 1

setup = publish.setup
done = publish.done

function init(args)
  batch = tonumber(args[1]) or 1
  publish.init()
end

local function event()
  return publish.order(publish.uuid())
end

function request()
  if batch == 1 then
    return publish.single(event())
  end
  local events = {}
  for i = 1, batch do
    events[i] = event()
  end
  return wrk.format(nil, "/streams/orders", nil, "[" .. table.concat(events, ",") .. "]")
end
