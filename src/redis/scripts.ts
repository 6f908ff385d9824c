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
