--[[ lease.lua
  Hand out the next request of each due host, within the politeness gate:
  at most ARGV[4] in flight per host and request starts at least the host's delay
  apart. A leased request stays in the node's lease hash until acked or reclaimed.
  A candidate may sit in another node's ready set: an idle node takes the next
  request of a host its busy owner left waiting (work stealing). The host stays
  with its owner: the ack re-arms it there, and the gate is the same for both.

  A host leased to its in-flight limit is parked in its ready set (its ack re-arms
  it, or takes it out if its queue is empty by then), so it is not read again
  here; its queue is not looked at until then.

  KEYS[1] epoch   KEYS[2] totals   KEYS[3] node's ready (zset)   KEYS[4] node's leases
  then per candidate host: queue (list), host state (hash), the ready set it is in
  ARGV[1] epoch   ARGV[2] now (ms)   ARGV[3] default delay (ms)   ARGV[4] max in flight
  ARGV[5] park (ms): how far to push back a host at its in-flight limit (an ack
  re-arms it sooner)   ARGV[6 ..] candidate hosts, in KEYS order
  Returns {0, next due (ms; -1 if none, or if a request was leased), lease id,
  host index (1-based), payload, ...} or, refused (see scripts.py), {-1} when the
  epoch is stale.
]]
-- luacheck: globals KEYS ARGV redis unpack
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {-1} end
local function int(x) return string.format('%d', x) end
local now, delay, max_inflight, park =
  tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local out, taken = {0, -1}, {}
for i = 6, #ARGV do
  local host = ARGV[i]
  local k = 5 + (i - 6) * 3
  local queue, state, ready = KEYS[k], KEYS[k + 1], KEYS[k + 2]
  local s = redis.call('HMGET', state, 'n', 't', 'd')
  local n, t = tonumber(s[1] or '0'), tonumber(s[2] or '0')
  local gap = math.max(delay, tonumber(s[3] or '0'))
  if t > now then
    redis.call('ZADD', ready, 'XX', s[2], host)
  elseif n >= max_inflight then
    redis.call('ZADD', ready, 'XX', int(now + park), host)
  else
    local payload = redis.call('LPOP', queue)
    if not payload then
      redis.call('ZREM', ready, host)
    else
      n, t = n + 1, now + gap
      redis.call('HSET', state, 'n', int(n), 't', int(t))
      taken[#taken + 1] = {host, i - 5, payload}
      if n >= max_inflight then
        redis.call('ZADD', ready, 'XX', int(now + park), host)
      elseif redis.call('LLEN', queue) == 0 then
        redis.call('ZREM', ready, host)
      else
        redis.call('ZADD', ready, 'XX', int(t), host)
      end
    end
  end
end
local leased = #taken
if leased == 0 then
  local first = redis.call('ZRANGE', KEYS[3], '0', '0', 'WITHSCORES')
  if first[2] then out[2] = tonumber(first[2]) end
  return out
end
-- unique even if Redis lost its last writes and the counter went back
local seq = redis.call('HINCRBY', KEYS[2], 'seq', int(leased)) - leased
local fields = {}
for j, lease in ipairs(taken) do
  local id = string.format('%d-%d', seq + j, now)
  fields[2 * j - 1], fields[2 * j] = id, lease[1] .. '\n' .. lease[3]
  out[#out + 1], out[#out + 2], out[#out + 3] = id, lease[2], lease[3]
end
for s = 1, #fields, 2000 do  -- unpack() has a stack limit
  redis.call('HSET', KEYS[4], unpack(fields, s, math.min(#fields, s + 1999)))
end
redis.call('HINCRBY', KEYS[2], 'queued', int(-leased))
redis.call('HINCRBY', KEYS[2], 'leased', int(leased))
return out
