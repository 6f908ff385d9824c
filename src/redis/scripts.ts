import { luaScript } from './connection.js';

// Every script runs atomically on the server and touches keys of one hash tag (one
// Redis Cluster slot). Every key it writes gets a TTL: the given one, or the key's
// own if that is longer (a record is never shortened). Times travel as strings and
// are compared with tonumber (epoch milliseconds are exact doubles); they are stored
// as the strings given, never re-formatted by Lua.

/**
 * One refresh: the compare-and-set of a family's current `jti`.
 * KEYS[1] the family hash (`cur`, `prev`, `spent`, `rev`).
 * ARGV jti, nextJti, nowMs, ttl (ms).
 * Answers `{'rotated'}`, `{'revoked'}`, `{'reused', spentAtMs or false}`.
 *
 * @internal
 */
export const ROTATE = luaScript(`
local key = KEYS[1]
local jti, nxt, now, ttl = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local rec = redis.call('HMGET', key, 'cur', 'prev', 'spent', 'rev')
if rec[4] == '1' then return {'revoked'} end
if rec[1] and rec[1] ~= jti then
  if rec[2] == jti then return {'reused', rec[3]} end
  return {'reused', false}
end
redis.call('HSET', key, 'cur', nxt, 'prev', jti, 'spent', now)
if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
return {'rotated'}
`);

/**
 * Marks a family revoked, keeping its record at least `ttl` ms.
 * KEYS[1] the family hash. ARGV ttl (ms).
 *
 * @internal
 */
export const REVOKE_FAMILY = luaScript(`
redis.call('HSET', KEYS[1], 'rev', '1')
local ttl = tonumber(ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
`);

/**
 * Records "every credential of the user issued at or before atMs is revoked",
 * keeping the latest time and the longest TTL.
 * KEYS[1] the user's revocation key. ARGV atMs, ttl (ms).
 *
 * @internal
 */
export const REVOKE_USER = luaScript(`
local key = KEYS[1]
local at, ttl = ARGV[1], tonumber(ARGV[2])
local current = redis.call('GET', key)
if current and tonumber(current) >= tonumber(at) then at = current end
local left = redis.call('PTTL', key)
if left > ttl then ttl = left end
redis.call('SET', key, at, 'PX', ttl)
return 1
`);

/**
 * Revokes one credential by id, keeping the longest TTL, and forgets the
 * credential's activity record (a revoked session has no idle time left).
 * KEYS[1] the revocation key, KEYS[2] the activity key (same hash tag). ARGV ttl (ms).
 *
 * @internal
 */
export const REVOKE_ID = luaScript(`
local ttl = tonumber(ARGV[1])
local left = redis.call('PTTL', KEYS[1])
if left > ttl then ttl = left end
redis.call('SET', KEYS[1], '1', 'PX', ttl)
redis.call('DEL', KEYS[2])
return 1
`);

// The throttle scripts (RedisThrottleStore). One hash per key: `n` the count, `u`
// blocked until (epoch ms; absent or `0` when not blocked), `e` when the record
// ends (epoch ms, by the caller's clock, so a record ends when the memory store's
// would). A record whose `e` has passed, or that does not parse, is absent and
// dropped. The key's TTL follows `e` (never shortened; a key found without one gets
// it back), so Redis drops the key even if it is never met again. Computed times are
// written with `%.17g`, which reads back as the same double.

const THROTTLE_RECORD = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local rec = redis.call('HMGET', key, 'n', 'u', 'e')
local n, u, e = tonumber(rec[1]), tonumber(rec[2]) or 0, tonumber(rec[3])
local live = n ~= nil and e ~= nil and n >= 0 and e > now and e < math.huge
if not live then
  redis.call('DEL', key)
  n, u, e = 0, 0, nil
end
local function ms(x) return string.format('%.17g', x) end
local function keep(until_ms)
  local ttl = math.max(1, math.ceil(until_ms - now))
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ms(ttl)) end
end
`;

/**
 * A login throttle's attempt (`ThrottleStore.acquire`).
 * KEYS[1] the key's hash. ARGV nowMs, max, windowMs, delayMs, maxDelayMs.
 * Answers `{'1', count}` (let through) or `{'0', count, blockedUntilMs}`.
 *
 * @internal
 */
export const THROTTLE_ACQUIRE = luaScript(`${THROTTLE_RECORD}
local max, window = tonumber(ARGV[2]), tonumber(ARGV[3])
local delay, maxDelay = tonumber(ARGV[4]), tonumber(ARGV[5])
if live and u > now then
  keep(e)
  return {'0', tostring(n), ms(u)}
end
if not live then e = now + window end
n = n + 1
if n >= max then
  local block = math.min(maxDelay, delay * 2 ^ math.min(n - max, 40))
  u = now + block
  if u + window > e then e = u + window end
end
redis.call('HSET', key, 'n', tostring(n), 'u', ms(u), 'e', ms(e))
keep(e)
return {'1', tostring(n)}
`);

/**
 * The state of a throttled key (`ThrottleStore.peek`); counts nothing.
 * KEYS[1] the key's hash. ARGV nowMs.
 * Answers `{count, blockedUntilMs}`, or `{}` when the key has no record.
 *
 * @internal
 */
export const THROTTLE_PEEK = luaScript(`${THROTTLE_RECORD}
if not live then return {} end
keep(e)
return {tostring(n), ms(u)}
`);

/**
 * Takes back one attempt (`ThrottleStore.release(…, 'refund')`) and lifts the block
 * it set (no other attempt is admitted while one is blocked on).
 * KEYS[1] the key's hash. ARGV nowMs, max (unused: kept for the call's shape).
 *
 * @internal
 */
export const THROTTLE_REFUND = luaScript(`${THROTTLE_RECORD}
if not live then return 0 end
n = math.max(0, n - 1)
redis.call('HSET', key, 'n', tostring(n), 'u', '0')
keep(e)
return 1
`);

/**
 * A request counted against a rate limit (`ThrottleStore.hit`): one more in the
 * key's fixed window, a new window when none is running. Lean on purpose (it runs
 * on every limited request): one `HINCRBY` in a running window; the new window's end
 * and TTL come computed from the caller.
 * KEYS[1] the key's hash. ARGV nowMs, resetAtMs (nowMs + windowMs), ttl (ms).
 * Answers `{count, resetAtMs}`.
 *
 * @internal
 */
export const THROTTLE_HIT = luaScript(`
local key = KEYS[1]
local now = tonumber(ARGV[1])
local rec = redis.call('HMGET', key, 'n', 'e')
local n, e = tonumber(rec[1]), tonumber(rec[2])
if n ~= nil and e ~= nil and n >= 0 and n == math.floor(n) and e > now and e < math.huge then
  n = redis.call('HINCRBY', key, 'n', 1)
  if redis.call('PTTL', key) < 0 then
    redis.call('PEXPIRE', key, string.format('%.17g', math.max(1, math.ceil(e - now))))
  end
  return {tostring(n), rec[2]}
end
redis.call('DEL', key)
redis.call('HSET', key, 'n', '1', 'e', ARGV[2])
redis.call('PEXPIRE', key, ARGV[3])
return {'1', ARGV[2]}
`);
