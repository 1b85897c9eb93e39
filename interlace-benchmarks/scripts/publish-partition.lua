-- wrk script: like publish.lua (one single-event publish per request to /streams/orders, a random UUIDv4-shaped
-- order_id each), but only keys of one partition: `wrk ... -s publish-partition.lua URL -- P N` sends only events whose
-- key falls in partition P of N, so that a client pointed at that partition's sequencer is never forwarded. The
-- partition is the server's (dev.interlace.client.Partitioning): FNV-1a over the key's bytes with a final avalanche,
-- unsigned remainder by N; 64-bit arithmetic through LuaJIT's uint64_t. Checked at start against known keys.
package.path = (debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "?.lua;" .. package.path
local publish = require("publish-lib")
local ffi = require("ffi")
local bit = require("bit")
local partition, partitions = 0, 1

local function key_hash(s)
  local h = ffi.new("uint64_t", 0xcbf29ce484222325ULL)
  for i = 1, #s do
    h = bit.bxor(h, s:byte(i)) * 0x100000001b3ULL
  end
  h = bit.bxor(h, bit.rshift(h, 33)) * 0xff51afd7ed558ccdULL
  h = bit.bxor(h, bit.rshift(h, 33)) * 0xc4ceb9fe1a85ec53ULL
  return bit.bxor(h, bit.rshift(h, 33))
end

local function partition_of(key, n)
  if n == 1 then
    return 0
  end
  return tonumber(key_hash(key) % ffi.new("uint64_t", n))
end

setup = publish.setup
done = publish.done

function init(args)
  partition = tonumber(args[1]) or 0
  partitions = tonumber(args[2]) or 1
  publish.init()
  if args[3] == "check" then
    for _, key in ipairs({"a", "order-1", "3f2b1c4d-0000-4000-8000-000000000000"}) do
      io.write(string.format("CHECK %s %s %d\n", key, tostring(key_hash(key)), partition_of(key, 7)))
    end
  end
end

function request()
  local key = publish.uuid()
  while partition_of(key, partitions) ~= partition do
    key = publish.uuid()
  end
  return publish.single(publish.order(key))
end
