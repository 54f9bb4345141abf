// The Lua scripts of RedisBudgetStore. Each runs atomically in Redis, so no
// interleaving of workers can see a half-taken lease. Per scope i, KEYS[2i-1] is
// the scope's state hash (`spent`, `reserved`, `r:<lease>` = amount) and KEYS[2i]
// its lease sorted set (member lease id, score expiry in ms of Redis's clock).
// Redis's own TIME is the only clock, so machines with skewed clocks agree.

const NOW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local scopes = #KEYS / 2
`;

// Expired leases return their reservation and their slot.
const PURGE = `
local function purge(state, leases)
  local expired = redis.call('ZRANGEBYSCORE', leases, '-inf', now)
  for _, lease in ipairs(expired) do
    local held = redis.call('HGET', state, 'r:' .. lease)
    if held then
      redis.call('HINCRBY', state, 'reserved', -tonumber(held))
      redis.call('HDEL', state, 'r:' .. lease)
    end
  end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', leases, '-inf', now) end
end
local function counters(i)
  local state, leases = KEYS[2 * i - 1], KEYS[2 * i]
  local spent = tonumber(redis.call('HGET', state, 'spent') or '0')
  local reserved = tonumber(redis.call('HGET', state, 'reserved') or '0')
  return spent, reserved, redis.call('ZCARD', leases)
end
`;

/** ARGV: lease id, amount, ttl ms, then per scope its limit and max in flight (-1: none). Returns {'ok'} or {reason, i, spent, reserved, inFlight}. */
export const ACQUIRE_SCRIPT = `${NOW}${PURGE}
local id, amount, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local spent, reserved, inFlight = {}, {}, {}
for i = 1, scopes do
  purge(KEYS[2 * i - 1], KEYS[2 * i])
  spent[i], reserved[i], inFlight[i] = counters(i)
end
for i = 1, scopes do
  local limit = tonumber(ARGV[2 + 2 * i])
  if limit >= 0 and spent[i] + reserved[i] + amount > limit then
    return {'spend', i, spent[i], reserved[i], inFlight[i]}
  end
end
for i = 1, scopes do
  local maxInFlight = tonumber(ARGV[3 + 2 * i])
  if maxInFlight >= 0 and inFlight[i] >= maxInFlight then
    return {'in_flight', i, spent[i], reserved[i], inFlight[i]}
  end
end
for i = 1, scopes do
  redis.call('ZADD', KEYS[2 * i], now + ttl, id)
  redis.call('HINCRBY', KEYS[2 * i - 1], 'reserved', ARGV[2])
  redis.call('HSET', KEYS[2 * i - 1], 'r:' .. id, ARGV[2])
end
return {'ok'}
`;

/** How long a settled lease id is remembered, so a retried settlement is not counted twice (ms). */
const SETTLED_RETENTION_MS = 600_000;

/**
 * KEYS: the scopes' keys, then the root's set of recently settled lease ids.
 * ARGV: lease id, actual amount. Returns 1 when the lease was held in every scope
 * (or was settled before: a retry whose first try did reach Redis), else 0.
 */
export const SETTLE_SCRIPT = `${NOW}
scopes = (#KEYS - 1) / 2
local id = ARGV[1]
local settled = KEYS[#KEYS]
redis.call('ZREMRANGEBYSCORE', settled, '-inf', now - ${SETTLED_RETENTION_MS})
if redis.call('ZSCORE', settled, id) then return 1 end
redis.call('ZADD', settled, now, id)
local held = 1
for i = 1, scopes do
  local state, leases = KEYS[2 * i - 1], KEYS[2 * i]
  local amount = redis.call('HGET', state, 'r:' .. id)
  if amount then
    redis.call('HINCRBY', state, 'reserved', -tonumber(amount))
    redis.call('HDEL', state, 'r:' .. id)
  else
    held = 0
  end
  redis.call('ZREM', leases, id)
  redis.call('HINCRBY', state, 'spent', ARGV[2])
end
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

/** Purges, then returns {spent, reserved, inFlight} per scope. */
export const COUNTERS_SCRIPT = `${NOW}${PURGE}
local result = {}
for i = 1, scopes do
  purge(KEYS[2 * i - 1], KEYS[2 * i])
  local spent, reserved, inFlight = counters(i)
  result[i] = {spent, reserved, inFlight}
end
return result
`;
