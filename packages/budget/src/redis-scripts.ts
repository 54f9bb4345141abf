// The Lua scripts of RedisBudgetStore. Each runs atomically in Redis, so no
// interleaving of workers can see a half-taken lease. Per scope i, KEYS[2i-1] is
// the scope's state hash and KEYS[2i] its lease sorted set (member lease id,
// score expiry in ms of Redis's clock); the last key is the lease's own record.
// State hash fields: `ledger` (the marker written when the ledger was made),
// `origin` ('reset' after resetLedger), `spent`, `reserved`, `unsettled`,
// `unsettledCalls`, `r:<lease>` (amount held by a live lease) and `u:<lease>`
// (the worst case counted for a lease that ended unsettled).
// The lease record (`state` held|ended, `answer`) makes every script idempotent
// by lease id: a command re-sent after a lost reply changes nothing and answers
// as the first run did. Redis's own TIME is the only clock.

const NOW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local scopes = (#KEYS - 1) / 2
local record = KEYS[#KEYS]
`;

// Expired leases become spend at their worst case, counted as unsettled; their slot is freed.
const PURGE = `
local function purge(state, leases)
  local expired = redis.call('ZRANGEBYSCORE', leases, '-inf', now)
  for _, lease in ipairs(expired) do
    local held = redis.call('HGET', state, 'r:' .. lease)
    if held then
      redis.call('HINCRBY', state, 'reserved', -tonumber(held))
      redis.call('HDEL', state, 'r:' .. lease)
      redis.call('HSET', state, 'u:' .. lease, held)
      redis.call('HINCRBY', state, 'spent', held)
      redis.call('HINCRBY', state, 'unsettled', held)
      redis.call('HINCRBY', state, 'unsettledCalls', 1)
    end
  end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', leases, '-inf', now) end
end
local function counters(i)
  local state, leases = KEYS[2 * i - 1], KEYS[2 * i]
  local values = redis.call('HMGET', state, 'spent', 'reserved', 'unsettled', 'unsettledCalls')
  return {tonumber(values[1] or '0'), tonumber(values[2] or '0'), redis.call('ZCARD', leases),
    tonumber(values[3] or '0'), tonumber(values[4] or '0')}
end
-- The scope's ledger as this caller knows it ('' when it never saw one): the
-- marker, or false when the ledger is gone or was replaced by another one.
local function ledger(i, known, fresh)
  local state = KEYS[2 * i - 1]
  local current = redis.call('HGET', state, 'ledger')
  if not current then
    if known ~= '' then return false end
    redis.call('HSET', state, 'ledger', fresh)
    return fresh
  end
  if known == '' or known == current then return current end
  if redis.call('HGET', state, 'origin') == 'reset' then return current end
  return false
end
`;

/**
 * ARGV: lease id, amount, ttl ms, record retention ms, a fresh ledger marker,
 * then per scope its limit, max in flight (-1: none) and the ledger it knows ('').
 * Returns {'ok', ledger, spent, reserved, inFlight, unsettled, unsettledCalls per scope}
 * or {reason, i, spent, reserved, inFlight, unsettled, unsettledCalls}.
 */
export const ACQUIRE_SCRIPT = `${NOW}${PURGE}
local id, amount, ttl, retention, fresh = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5]
local ledgers, rows = {}, {}
for i = 1, scopes do
  local marker = ledger(i, ARGV[5 + 3 * i], fresh)
  if not marker then
    local row = counters(i)
    return {'ledger_lost', i, row[1], row[2], row[3], row[4], row[5]}
  end
  ledgers[i] = marker
  purge(KEYS[2 * i - 1], KEYS[2 * i])
  rows[i] = counters(i)
end
local function answer()
  local reply = {'ok'}
  for i = 1, scopes do
    table.insert(reply, ledgers[i])
    for _, value in ipairs(counters(i)) do table.insert(reply, value) end
  end
  return reply
end
local seen = redis.call('HGET', record, 'state')
if seen == 'held' then return answer() end
if seen then
  local row = rows[1]
  return {'ended', 1, row[1], row[2], row[3], row[4], row[5]}
end
for i = 1, scopes do
  local limit = tonumber(ARGV[3 + 3 * i])
  local row = rows[i]
  if limit >= 0 and row[1] + row[2] + amount > limit then
    return {'spend', i, row[1], row[2], row[3], row[4], row[5]}
  end
end
for i = 1, scopes do
  local maxInFlight = tonumber(ARGV[4 + 3 * i])
  local row = rows[i]
  if maxInFlight >= 0 and row[3] >= maxInFlight then
    return {'in_flight', i, row[1], row[2], row[3], row[4], row[5]}
  end
end
for i = 1, scopes do
  redis.call('ZADD', KEYS[2 * i], now + ttl, id)
  redis.call('HINCRBY', KEYS[2 * i - 1], 'reserved', ARGV[2])
  redis.call('HSET', KEYS[2 * i - 1], 'r:' .. id, ARGV[2])
end
redis.call('HSET', record, 'state', 'held')
redis.call('PEXPIRE', record, retention)
return answer()
`;

/**
 * ARGV: lease id, amount, 1 when the amount is a worst case (unsettled) else 0,
 * retention ms of the ended record. Returns 1 when the lease was held in every
 * scope, else 0; a repeat returns the first answer and changes nothing.
 */
export const SETTLE_SCRIPT = `${NOW}
local id, amount, unsettled = ARGV[1], tonumber(ARGV[2]), ARGV[3] == '1'
local seen = redis.call('HMGET', record, 'state', 'answer')
if seen[1] == 'ended' then return tonumber(seen[2]) end
local held = seen[1] == 'held' and 1 or 0
for i = 1, scopes do
  local state, leases = KEYS[2 * i - 1], KEYS[2 * i]
  local reserved = redis.call('HGET', state, 'r:' .. id)
  if reserved then
    redis.call('HINCRBY', state, 'reserved', -tonumber(reserved))
    redis.call('HDEL', state, 'r:' .. id)
  else
    held = 0
    local worst = redis.call('HGET', state, 'u:' .. id)
    if worst then
      redis.call('HINCRBY', state, 'spent', -tonumber(worst))
      redis.call('HINCRBY', state, 'unsettled', -tonumber(worst))
      redis.call('HINCRBY', state, 'unsettledCalls', -1)
      redis.call('HDEL', state, 'u:' .. id)
    end
  end
  redis.call('ZREM', leases, id)
  redis.call('HINCRBY', state, 'spent', ARGV[2])
  if unsettled then
    redis.call('HINCRBY', state, 'unsettled', ARGV[2])
    redis.call('HINCRBY', state, 'unsettledCalls', 1)
    redis.call('HSET', state, 'u:' .. id, ARGV[2])
  end
end
redis.call('HSET', record, 'state', 'ended', 'answer', held)
redis.call('PEXPIRE', record, ARGV[4])
return held
`;

/** ARGV: lease id, ttl ms. Extends the lease where it is still held (never revives it). Returns 1 when held in every scope. */
export const RENEW_SCRIPT = `${NOW}
local held = 1
for i = 1, scopes do
  local leases = KEYS[2 * i]
  local expires = redis.call('ZSCORE', leases, ARGV[1])
  if expires and tonumber(expires) > now then
    redis.call('ZADD', leases, 'XX', now + tonumber(ARGV[2]), ARGV[1])
  else
    held = 0
  end
end
return held
`;

/**
 * ARGV: per scope the ledger it knows (''). Purges, then returns per scope
 * {spent, reserved, inFlight, unsettled, unsettledCalls, lost (1 or 0)}.
 */
export const COUNTERS_SCRIPT = `${NOW}${PURGE}
local result = {}
for i = 1, scopes do
  local current = redis.call('HGET', KEYS[2 * i - 1], 'ledger')
  local known = ARGV[i]
  local lost = 0
  if known ~= '' and current ~= known and (not current or redis.call('HGET', KEYS[2 * i - 1], 'origin') ~= 'reset') then
    lost = 1
  end
  purge(KEYS[2 * i - 1], KEYS[2 * i])
  local row = counters(i)
  table.insert(row, lost)
  result[i] = row
end
return result
`;

/** ARGV: a fresh ledger marker. Starts a new ledger in every scope, keeping what they hold now. */
export const RESET_SCRIPT = `${NOW}
for i = 1, scopes do
  redis.call('HSET', KEYS[2 * i - 1], 'ledger', ARGV[1], 'origin', 'reset')
end
return ARGV[1]
`;
