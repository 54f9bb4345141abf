// The Lua scripts of RedisBudgetStore. Each runs atomically in Redis, so no
// interleaving of workers can see a half-taken lease. Per scope i, KEYS[3i-2] is
// the scope's state hash, KEYS[3i-1] its lease sorted set (member lease id, score
// expiry in ms of Redis's clock) and KEYS[3i] its unsettled entries (a sorted set,
// see redis-lua-unsettled.ts); the last key is the lease's own record.
// State hash fields: `ledger` (the marker written when the ledger was made),
// `origin` ('reset' after resetLedger), `lost` (a tombstone, see
// redis-lua-ledger.ts), `spent`, `reserved`, `unsettled`, `unsettledCalls`,
// `r:<lease>` (amount held by a live lease), `u:<lease>` (the worst case
// counted for a lease that ended unsettled, until pruned) and `unsettledFrom`
// (see redis-lua-unsettled.ts).
// The lease record (`state` held|ended, `answer`) makes every script idempotent
// by lease id: a command re-sent after a lost reply changes nothing and answers
// as the first run did. Redis's own TIME is the only clock.
import { LEDGER_LUA } from './redis-lua-ledger.js';
import { UNSETTLED_LUA } from './redis-lua-unsettled.js';
import { PAST_WINDOW_KEEP_MS } from './scope-windows.js';

const NOW_LUA = `
local now
-- Redis's clock in ms (TIME), read once per script, when first needed: a settlement that counts no
-- worst case, in a scope with its ledger and no window, never reads it.
local function clock()
  if now == nil then
    local time = redis.call('TIME')
    now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  return now
end
local scopes = (#KEYS - 1) / 3
local record = KEYS[#KEYS]
local function keys(i) return KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i] end
-- A count for HSET: all digits (a number's own tostring would write 1e+15, which HINCRBY refuses).
local function integer(x) return string.format('%.0f', x) end
`;

// A windowed scope's keys are kept PAST_WINDOW_KEEP_MS after its window's end (end < 0: no window).
const KEEP_LUA = `
local function keepWindow(i, ending)
  local stop = tonumber(ending)
  if stop < 0 then return end
  local ttl = math.max(1, stop + ${PAST_WINDOW_KEEP_MS} - clock())
  local state, leases, unsettled = keys(i)
  redis.call('PEXPIRE', state, ttl)
  redis.call('PEXPIRE', leases, ttl)
  redis.call('PEXPIRE', unsettled, ttl)
end
`;

const PARTS = `${NOW_LUA}${LEDGER_LUA}${UNSETTLED_LUA}${KEEP_LUA}`;
/** What every script but SETTLE_SCRIPT does first: read Redis's clock into `now`. */
const NOW = 'clock()';

/**
 * ARGV: lease id, amount, ttl ms, held record retention ms, unsettled retention
 * ms, a fresh ledger marker, then per scope one argument: its limit, max in flight
 * (-1: none), its window's start and end in ms (-1: none) and the ledger it knows
 * (''), joined by commas (one argument, not five: each costs at both ends).
 * Returns {'ok', ledger, spent, reserved, inFlight, unsettled, unsettledCalls per
 * scope}, {reason, i, spent, reserved, inFlight, unsettled, unsettledCalls, now},
 * or {'window', i, now} when Redis's clock is not within scope i's window
 * (nothing is written).
 */
export const ACQUIRE_SCRIPT = `${PARTS}
${NOW}
local id, amount, ttl, heldFor, fresh = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[6]
local ledgers, rows = {}, {}
local limits, maxes, starts, ends, knowns = {}, {}, {}, {}, {}
for i = 1, scopes do
  local limit, max, start, stop, known = string.match(ARGV[6 + i], '^([^,]*),([^,]*),([^,]*),([^,]*),(.*)$')
  limits[i], maxes[i], starts[i], ends[i], knowns[i] = tonumber(limit), tonumber(max), tonumber(start), stop, known
end
-- A refusal: why, the refusing scope, its counters and Redis's time.
local function refusal(reason, i, row)
  return {reason, i, row[1], row[2], row[3], row[4], row[5], now}
end
for i = 1, scopes do
  local ending = tonumber(ends[i])
  if ending >= 0 and (now < starts[i] or now >= ending) then return {'window', i, now} end
end
for i = 1, scopes do
  local state, leases = keys(i)
  -- One read of the hash: the marker, the counters and the unsettled entries' floor.
  local read = redis.call('HMGET', state, 'ledger', 'origin', 'spent', 'reserved', 'unsettled', 'unsettledCalls',
    'unsettledFrom')
  local marker = ledgerFrom(i, read[1], read[2], knowns[i], fresh)
  if not marker then return refusal('ledger_lost', i, counters(i)) end
  ledgers[i] = marker
  local leaseCount = redis.call('ZCARD', leases)
  local expired = purge(i, leaseCount)
  prune(i, tonumber(ARGV[5]), read[7], true)
  if expired > 0 then
    rows[i] = counters(i)
  else
    rows[i] = {tonumber(read[3] or '0'), tonumber(read[4] or '0'), leaseCount, tonumber(read[5] or '0'),
      tonumber(read[6] or '0')}
  end
  -- A window's keys expire after its keep, refused or granted (the marker was written either way).
  keepWindow(i, ends[i])
end
-- Each scope's marker and counters: as read above (a repeat changes nothing), or with
-- this lease added (granted now), without reading them again.
local function answer(granted)
  local reply = {'ok'}
  for i = 1, scopes do
    local row = rows[i]
    table.insert(reply, ledgers[i])
    table.insert(reply, row[1])
    table.insert(reply, granted and row[2] + amount or row[2])
    table.insert(reply, granted and row[3] + 1 or row[3])
    table.insert(reply, row[4])
    table.insert(reply, row[5])
  end
  return reply
end
local seen = redis.call('HGET', record, 'state')
if seen == 'held' then return answer(false) end
if seen then return refusal('ended', 1, rows[1]) end
-- Spend in every scope first, then spend and reservations: 'reserved' means no scope is out of money.
for _, reason in ipairs({'spend', 'reserved'}) do
  for i = 1, scopes do
    local limit = limits[i]
    local row = rows[i]
    local held = reason == 'reserved' and row[2] or 0
    if limit >= 0 and row[1] + held + amount > limit then return refusal(reason, i, row) end
  end
end
for i = 1, scopes do
  local maxInFlight = maxes[i]
  if maxInFlight >= 0 and rows[i][3] >= maxInFlight then return refusal('in_flight', i, rows[i]) end
end
for i = 1, scopes do
  local state, leases = keys(i)
  redis.call('ZADD', leases, now + ttl, id)
  redis.call('HSET', state, 'reserved', integer(rows[i][2] + amount), 'r:' .. id, ARGV[2])
  -- The lease set may be new: it expires with the window's other keys.
  keepWindow(i, ends[i])
end
redis.call('HSET', record, 'state', 'held')
redis.call('PEXPIRE', record, heldFor)
return answer(true)
`;

/**
 * ARGV: lease id, amount, 1 when the amount is a worst case (unsettled) else 0,
 * retention ms (of the ended record and of unsettled entries), 1 when the lease
 * was granted by this store (a budget's own lease) else 0, then per scope its
 * window's end in ms (-1: none; absent from older processes). Returns 1 when the
 * lease was held in every scope, else 0; a repeat returns the first answer and
 * changes nothing.
 *
 * In a scope that keeps no trace of a lease it granted (its worst case was
 * counted and the entry pruned), the settlement changes nothing; but in a ledger
 * started by a reset, a lease granted by no record is added (it may be a call
 * made before the loss). In a scope without its marker (a lost ledger), the
 * figures are written all the same, with a tombstone, so they are kept for a
 * reset and the loss is seen by every process; only a release of a lease never
 * granted writes nothing there (it may be a scope that never had a ledger).
 */
export const SETTLE_SCRIPT = `${PARTS}
local id, amount, unsettled = ARGV[1], tonumber(ARGV[2]), ARGV[3] == '1'
local retention, leased = tonumber(ARGV[4]), ARGV[5] == '1'
local seen = redis.call('HMGET', record, 'state', 'answer')
if seen[1] == 'ended' then return tonumber(seen[2]) end
local held = seen[1] == 'held' and 1 or 0
for i = 1, scopes do
  local state, leases = keys(i)
  local read = redis.call('HMGET', state, 'ledger', 'r:' .. id, 'origin', 'reserved', 'spent', 'unsettledFrom')
  local marker, reserved = read[1], read[2]
  local count = true
  if not reserved then
    held = 0
    if not uncount(i, id) and marker then
      count = not (seen[1] == 'held' or (leased and read[3] ~= 'reset'))
    end
  end
  if not marker then
    if amount == 0 and not seen[1] and not leased then
      count = false
    else
      tombstone(i)
    end
  end
  redis.call('ZREM', leases, id)
  if reserved then
    -- The lease's reservation leaves and, for a cost, the spend comes in: one write of both counters.
    local update = {'reserved', integer(tonumber(read[4] or '0') - tonumber(reserved))}
    if count and not unsettled then
      table.insert(update, 'spent')
      table.insert(update, integer(tonumber(read[5] or '0') + amount))
      count = false
    end
    redis.call('HSET', state, unpack(update))
    redis.call('HDEL', state, 'r:' .. id)
  end
  if count and unsettled then
    countUnsettled(i, id, ARGV[2])
    -- A settlement that adds an entry prunes as a reservation does, so pruning keeps up with any rate.
    prune(i, retention, read[6], marker)
  elseif count then
    redis.call('HINCRBY', state, 'spent', ARGV[2])
  end
  keepWindow(i, ARGV[5 + i] or '-1')
end
redis.call('HSET', record, 'state', 'ended', 'answer', held)
redis.call('PEXPIRE', record, retention)
return held
`;

/**
 * ARGV: lease id, ttl ms. Extends the lease where it is still held (never revives
 * it). Returns 1 when held in every scope. A lease it no longer finds in a scope
 * whose marker is gone was granted under a ledger that was lost: the loss is
 * marked (a tombstone) for every process.
 */
export const RENEW_SCRIPT = `${NOW_LUA}${LEDGER_LUA}
${NOW}
local held = 1
for i = 1, scopes do
  local state, leases = keys(i)
  local expires = redis.call('ZSCORE', leases, ARGV[1])
  if expires and tonumber(expires) > now then
    redis.call('ZADD', leases, 'XX', now + tonumber(ARGV[2]), ARGV[1])
  else
    held = 0
    if redis.call('HEXISTS', state, 'ledger') == 0 then tombstone(i) end
  end
end
return held
`;

/**
 * ARGV: unsettled retention ms, then per scope the ledger it knows (''), then per
 * scope its window's end in ms (-1: none; absent from older processes). Purges
 * and prunes, then returns per scope {spent, reserved, inFlight, unsettled,
 * unsettledCalls, lost (1 or 0)}.
 */
export const COUNTERS_SCRIPT = `${PARTS}
${NOW}
local result = {}
for i = 1, scopes do
  local gone = lost(i, ARGV[1 + i]) and 1 or 0
  purge(i)
  prune(i, tonumber(ARGV[1]))
  keepWindow(i, ARGV[1 + scopes + i] or '-1')
  local row = counters(i)
  table.insert(row, gone)
  result[i] = row
end
return result
`;

/**
 * ARGV: a fresh ledger marker. Starts a new ledger in every scope, keeping what
 * they hold now, and clears the tombstone of a loss.
 */
export const RESET_SCRIPT = `${NOW_LUA}
for i = 1, scopes do
  redis.call('HSET', KEYS[3 * i - 2], 'ledger', ARGV[1], 'origin', 'reset')
  redis.call('HDEL', KEYS[3 * i - 2], 'lost')
end
return ARGV[1]
`;

/** No keys: Redis's clock in ms since the epoch (`TIME`), the clock that decides calendar windows. */
export const CLOCK_SCRIPT = `
local time = redis.call('TIME')
return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

/**
 * ARGV: unsettled retention ms, n (levels per scope), then per scope its window's
 * end in ms (-1: none), 1 when asked else 0, and n levels (ascending nano-dollar
 * amounts). Purges and prunes; per scope asked, raises the state hash's \`mark\`
 * to the number of levels its spend reaches (in a scope with its ledger marker
 * only: a lost ledger is left for acquisitions to find). Returns per scope
 * {mark before, mark after, spent}.
 */
export const THRESHOLDS_SCRIPT = `${PARTS}
${NOW}
local n = tonumber(ARGV[2])
local result = {}
for i = 1, scopes do
  local at = 3 + (i - 1) * (n + 2)
  local state = KEYS[3 * i - 2]
  purge(i)
  prune(i, tonumber(ARGV[1]))
  local spent = counters(i)[1]
  local from = tonumber(redis.call('HGET', state, 'mark') or '0')
  local to = from
  if ARGV[at + 1] == '1' and redis.call('HEXISTS', state, 'ledger') == 1 then
    local reached = 0
    for k = 1, n do
      if tonumber(ARGV[at + 1 + k]) <= spent then reached = k end
    end
    if reached > from then
      to = reached
      redis.call('HSET', state, 'mark', to)
    end
  end
  keepWindow(i, ARGV[at])
  result[i] = {from, to, spent}
end
return result
`;
