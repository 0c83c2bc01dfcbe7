--[[ sweep.lua
  Move hosts (with their due times) from one ready set to their owners' ready
  sets. The queues themselves stay where they are: moving a host is O(1) however
  many requests it has queued.

  KEYS[1] epoch   KEYS[2] source (a node's ready, or orphans)
  then per host: destination ready (zset)
  ARGV[1] epoch   then the hosts, in KEYS order
  Returns the number of hosts moved; refused (see scripts.py): -1 stale epoch.
]]
-- luacheck: globals KEYS ARGV redis
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local moved = 0
for i = 2, #ARGV do
  local host = ARGV[i]
  local score = redis.call('ZSCORE', KEYS[2], host)
  if score then
    redis.call('ZREM', KEYS[2], host)
    redis.call('ZADD', KEYS[i + 1], 'NX', score, host)
    moved = moved + 1
  end
end
return moved
