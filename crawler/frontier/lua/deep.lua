--[[ deep.lua
  Promote a node's deep revisits: for each host, the threads (articles) whose phase falls
  in the share of the cycle run through since the host's last deep revisit go to the
  host's normal queue, as their kept first requests (dont_filter), so politeness and
  leases apply to them as to any request. Two cycles run at once, and a thread is read
  again when either of them passes its phase: one of ARGV[4] passes, one of ARGV[6] ms.
  The host's mark (pass and clock of its last deep revisit) moves to ARGV[3], ARGV[5]:
  each share is promoted once, whichever node runs it.

  KEYS[1] epoch   KEYS[2] totals   KEYS[3] marks (hash host -> '<pass> <clock ms>')
  KEYS[4] the caller's ready set
  then per host: deep schedule (zset key -> phase in [0, 1)), revisit state (hash,
  field 'd' .. key -> encoded request), queue (list), host state (hash)
  ARGV[1] epoch the caller's ring was built at   ARGV[2] now (ms)
  ARGV[3] the current pass   ARGV[4] passes per pass cycle (0: no pass cycle)
  ARGV[5] clock: the pass's start (ms), or now in watch mode
  ARGV[6] span: ms per time cycle (0: no time cycle)
  ARGV[7 ..] the hosts, one per group of KEYS
  Returns {status, requests promoted}: status 0 ok; refused (see scripts.py, nothing
  written): {-1} stale epoch.
]]
-- luacheck: globals KEYS ARGV redis
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {-1} end
local now, pass, passes = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local clock, span = tonumber(ARGV[5]), tonumber(ARGV[6])

-- the members of *schedule* whose phase is in [lo, hi) taken modulo 1, into *found*
local function share(found, schedule, lo, hi)
  if hi <= lo then return end
  local ranges
  if hi - lo >= 1 then
    ranges = {{0, 1}}
  else
    local a = lo - math.floor(lo)
    local b = a + (hi - lo)
    ranges = {{a, math.min(b, 1)}}
    if b > 1 then table.insert(ranges, {0, b - 1}) end
  end
  for _, r in ipairs(ranges) do
    for _, m in ipairs(redis.call('ZRANGEBYSCORE', schedule, r[1], '(' .. r[2])) do
      found[m] = true
    end
  end
end

local promoted = 0
for i = 7, #ARGV do
  local k = 5 + (i - 7) * 4
  local schedule, state, queue, host_state = KEYS[k], KEYS[k + 1], KEYS[k + 2], KEYS[k + 3]
  local host = ARGV[i]
  local mark = redis.call('HGET', KEYS[3], host)
  if mark then
    local last_pass, last_clock = string.match(mark, '^(%-?%d+) (%d+)$')
    last_pass, last_clock = tonumber(last_pass), tonumber(last_clock)
    if pass > last_pass or clock > last_clock then
      local found = {}
      if passes > 0 then share(found, schedule, last_pass / passes, pass / passes) end
      if span > 0 then share(found, schedule, last_clock / span, clock / span) end
      local pushed = 0
      for key in pairs(found) do
        local payload = redis.call('HGET', state, 'd' .. key)
        if payload then
          redis.call('RPUSH', queue, payload)
          pushed = pushed + 1
        else
          redis.call('ZREM', schedule, key)
        end
      end
      if pushed > 0 then
        local t = tonumber(redis.call('HGET', host_state, 't') or '0')
        redis.call('ZADD', KEYS[4], 'NX', math.max(t, now), host)
        promoted = promoted + pushed
      end
      redis.call('HSET', KEYS[3], host, string.format('%d %d', math.max(pass, last_pass),
                                                      math.max(clock, last_clock)))
    end
  end
end
if promoted > 0 then redis.call('HINCRBY', KEYS[2], 'queued', promoted) end
return {0, promoted}
