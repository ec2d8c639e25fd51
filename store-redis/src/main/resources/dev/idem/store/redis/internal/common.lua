-- Prepended to every script when it is loaded (see LuaScript), so the clock and the
-- reading of a record for the fenced operations are written once.

-- The clock in epoch milliseconds: the Redis server's, so leases are judged by Redis and
-- never by a JVM, unless the store was built with a test clock and passes its reading
-- (an empty argument means the server clock).
local function clock_now(arg)
  if arg and arg ~= '' then
    return tonumber(arg)
  end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Redis' own expiry of a record, relative to the script's clock: the same instant as
-- expires on the server clock, and the same lifetime under a test clock.
local function expire_at(key, expires, now)
  redis.call('PEXPIRE', key, math.max(expires - now, 1))
end

local CORRUPT = 'IDEMCORRUPT not an idem record (fields missing or malformed)'

-- State, token and expiry of the record, for complete, release, checkpoint and extend. The
-- state is nil when the key is absent; the fourth value is an error reply when the hash is
-- not ours.
local function fenced_fields(key)
  local r = redis.call('HMGET', key, 's', 't', 'e')
  local s, expires_at = r[1], tonumber(r[3])
  if s and (expires_at == nil or not r[2] or (s ~= 'I' and s ~= 'C' and s ~= 'R')) then
    return nil, nil, nil, redis.error_reply(CORRUPT)
  end
  return s, r[2], expires_at, nil
end
