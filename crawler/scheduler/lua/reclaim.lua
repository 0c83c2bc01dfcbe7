--[[ reclaim.lua
  Take work back from a node that died, left, or is draining: its leased requests
  go back to the head of their host queues and its hosts become orphans, which
  their new owners claim when they see the new epoch.

  KEYS[1] members   KEYS[2] weights   KEYS[3] epoch   KEYS[4] totals
  KEYS[5] node's ready (zset)   KEYS[6] node's leases (hash)   KEYS[7] orphans (zset)
  then per lease: queue (list), host state (hash)
  ARGV[1] node   ARGV[2] now (ms)
  ARGV[3] only if the node's heartbeat is older than this (ms); 'inf' to force
  ARGV[4] '1': remove the node from the ring; '0': keep it (draining)
  then per lease: lease id, host
  Returns the number of leases requeued; refused (see scripts.py): -4 the node
  turned out alive.
]]
-- luacheck: globals KEYS ARGV redis
local beat = redis.call('ZSCORE', KEYS[1], ARGV[1])
if ARGV[3] ~= 'inf' and beat and tonumber(beat) >= tonumber(ARGV[3]) then return -4 end
local now = tonumber(ARGV[2])
if ARGV[4] == '1' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
end
redis.call('ZUNIONSTORE', KEYS[7], 2, KEYS[7], KEYS[5], 'AGGREGATE', 'MIN')
redis.call('DEL', KEYS[5])
local requeued = 0
for i = 5, #ARGV, 2 do
  local k = 8 + (i - 5)
  local entry = redis.call('HGET', KEYS[6], ARGV[i])
  if entry then
    redis.call('HDEL', KEYS[6], ARGV[i])
    local payload = string.sub(entry, string.find(entry, '\n', 1, true) + 1)
    redis.call('LPUSH', KEYS[k], payload)
    local n = tonumber(redis.call('HGET', KEYS[k + 1], 'n') or '1')
    redis.call('HSET', KEYS[k + 1], 'n', math.max(0, n - 1))
    redis.call('ZADD', KEYS[7], now, ARGV[i + 1])  -- due now, even if it was parked
    requeued = requeued + 1
  end
end
if requeued > 0 then
  redis.call('HINCRBY', KEYS[4], 'leased', -requeued)
  redis.call('HINCRBY', KEYS[4], 'queued', requeued)
end
redis.call('INCR', KEYS[3])
return requeued
