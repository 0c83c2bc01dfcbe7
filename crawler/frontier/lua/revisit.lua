--[[ revisit.lua
  Promote a node's due revisits: move the due listing requests of each host from the
  host's revisit schedule into its normal queue, as dont_filter requests (the Bloom
  filter saw them long ago), so politeness and leases apply to them as to any request.
  Each promoted entry is rescheduled at ARGV[4] (a safety net: the response sets its
  real due time; a revisit whose fetch fails for good still comes back). The cluster's
  index of due hosts is set to each host's new earliest due time.

  KEYS[1] epoch   KEYS[2] totals   KEYS[3] due (zset host -> earliest due ms)
  KEYS[4] the caller's ready set
  then per host: revisit schedule (zset fingerprint -> due ms), revisit state (hash,
  field 'p' .. fingerprint -> encoded request), queue (list), host state (hash)
  ARGV[1] epoch the caller's ring was built at   ARGV[2] now (ms)
  ARGV[3] horizon: entries due at or before it are promoted (ms)
  ARGV[4] when promoted entries are due again unless their response says otherwise (ms)
  ARGV[5 ..] the hosts, one per group of KEYS
  Returns {status, requests promoted}: status 0 ok; refused (see scripts.py, nothing
  written): {-1} stale epoch.
]]
-- luacheck: globals KEYS ARGV redis
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {-1} end
local now, horizon, again = tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local promoted = 0
for i = 5, #ARGV do
  local k = 5 + (i - 5) * 4
  local schedule, state, queue, host_state = KEYS[k], KEYS[k + 1], KEYS[k + 2], KEYS[k + 3]
  local host = ARGV[i]
  local pushed = 0
  for _, fp in ipairs(redis.call('ZRANGEBYSCORE', schedule, '-inf', horizon)) do
    local payload = redis.call('HGET', state, 'p' .. fp)
    if payload then
      redis.call('RPUSH', queue, payload)
      redis.call('ZADD', schedule, again, fp)
      pushed = pushed + 1
    else
      redis.call('ZREM', schedule, fp)
    end
  end
  if pushed > 0 then
    local t = tonumber(redis.call('HGET', host_state, 't') or '0')
    redis.call('ZADD', KEYS[4], 'NX', math.max(t, now), host)
    promoted = promoted + pushed
  end
  local first = redis.call('ZRANGE', schedule, 0, 0, 'WITHSCORES')
  if first[2] then
    redis.call('ZADD', KEYS[3], first[2], host)
  else
    redis.call('ZREM', KEYS[3], host)
  end
end
if promoted > 0 then redis.call('HINCRBY', KEYS[2], 'queued', promoted) end
return {0, promoted}
