--[[ reclaim.lua
  Take work back from a node that died, left, or is draining: its leased requests
  go back to the head of their host queues and its hosts become orphans, which
  their new owners claim when they see the new epoch.

  A lease taken back from a node that died (or restarted) counts as an attempt: the
  payload carries the count as a prefix "@<n>|". A request whose attempts reach
  ARGV[5] goes to the dead-letter stream instead (a page that kills a node must not
  kill the next); hand-backs of unstarted work (drain, leave) pass '0' and count
  nothing.

  KEYS[1] members   KEYS[2] weights   KEYS[3] epoch   KEYS[4] totals
  KEYS[5] node's ready (zset)   KEYS[6] node's leases (hash)   KEYS[7] orphans (zset)
  KEYS[8] dead letters (stream)
  then per lease: queue (list), host state (hash)
  ARGV[1] node   ARGV[2] now (ms)
  ARGV[3] only if the node's heartbeat is older than this (ms); 'inf' to force
  ARGV[4] '1': remove the node from the ring; '0': keep it (draining)
  ARGV[5] max attempts: a request is dead-lettered at this count; '0': do not count
  then per lease: lease id, host
  Returns the number of leases requeued (dead letters not included); refused (see
  scripts.py): -4 the node turned out alive.
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
local max_attempts = tonumber(ARGV[5])
local requeued, dead = 0, 0
for i = 6, #ARGV, 2 do
  local k = 9 + (i - 6)
  local entry = redis.call('HGET', KEYS[6], ARGV[i])
  if entry then
    redis.call('HDEL', KEYS[6], ARGV[i])
    local payload = string.sub(entry, string.find(entry, '\n', 1, true) + 1)
    local n = tonumber(redis.call('HGET', KEYS[k + 1], 'n') or '1')
    redis.call('HSET', KEYS[k + 1], 'n', math.max(0, n - 1))
    if max_attempts > 0 then
      local attempts, rest = string.match(payload, '^@(%d+)|(.*)$')
      attempts = (tonumber(attempts) or 0) + 1
      payload = '@' .. attempts .. '|' .. (rest or payload)
      if attempts >= max_attempts then
        redis.call('XADD', KEYS[8], 'MAXLEN', '~', 100000, '*', 'host', ARGV[i + 1],
                   'payload', rest or payload, 'reason', 'reclaimed ' .. attempts .. ' times',
                   'node', ARGV[1])
        dead = dead + 1
        payload = nil
      end
    end
    if payload then
      redis.call('LPUSH', KEYS[k], payload)
      redis.call('ZADD', KEYS[7], now, ARGV[i + 1])  -- due now, even if it was parked
      requeued = requeued + 1
    end
  end
end
if requeued + dead > 0 then
  redis.call('HINCRBY', KEYS[4], 'leased', -(requeued + dead))
  redis.call('HINCRBY', KEYS[4], 'queued', requeued)
end
redis.call('INCR', KEYS[3])
return requeued
