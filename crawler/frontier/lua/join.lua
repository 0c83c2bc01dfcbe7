--[[ join.lua
  Enter the ring, or change weight (weight 0: draining, owns no host but stays a
  member so its remaining leases are reclaimed if it dies).

  KEYS[1] members (zset)   KEYS[2] weights (hash)   KEYS[3] epoch
  ARGV[1] node   ARGV[2] now (ms)   ARGV[3] weight
  Returns the new epoch.
]]
-- luacheck: globals KEYS ARGV redis
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return redis.call('INCR', KEYS[3])
