--[[ ack.lua
  Settle leases whose outcome has been processed: free the host's in-flight slot,
  space its next start from when this request's response came back (as Nutch
  does; a gap between client-side starts can shrink on the way to the server,
  this one cannot), and re-arm the host
  in its owner's ready set if it has more work. A lease already reclaimed (the
  node was declared dead meanwhile) is skipped, so nothing is counted twice.

  KEYS[1] epoch   KEYS[2] totals   KEYS[3] node's leases
  then per lease: host state (hash), queue (list), owner's ready (zset)
  ARGV[1] epoch   ARGV[2] now (ms)   ARGV[3] default delay (ms)
  then per lease: lease id, host, response time (ms)
  Returns the number of leases settled, or -1 when the epoch is stale.
]]
-- luacheck: globals KEYS ARGV redis
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local now, delay = tonumber(ARGV[2]), tonumber(ARGV[3])
local settled = 0
for i = 4, #ARGV, 3 do
  local state, queue, ready = KEYS[i], KEYS[i + 1], KEYS[i + 2]
  if redis.call('HDEL', KEYS[3], ARGV[i]) == 1 then
    settled = settled + 1
    local s = redis.call('HMGET', state, 'n', 't', 'd')
    local n = math.max(0, tonumber(s[1] or '1') - 1)
    local t = math.max(tonumber(s[2] or '0'),
                       tonumber(ARGV[i + 2]) + math.max(delay, tonumber(s[3] or '0')))
    redis.call('HSET', state, 'n', n, 't', t)
    if redis.call('LLEN', queue) > 0 then
      redis.call('ZADD', ready, math.max(t, now), ARGV[i + 1])
    end
  end
end
if settled > 0 then redis.call('HINCRBY', KEYS[2], 'leased', -settled) end
return settled
