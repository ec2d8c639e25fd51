-- extendLease: KEYS[1] = record; ARGV = token (decimal text), lease ms, clock ms or ''.
-- Reply: {1, newLeaseUntil} or {0}.
local key = KEYS[1]
local token, lease = ARGV[1], tonumber(ARGV[2])
local now = clock_now(ARGV[3])
local s, holder, expires_at, bad = fenced_fields(key)
if bad then
  return bad
end
if not s then
  return {0}
end
if s ~= 'I' or holder ~= token or expires_at <= now then
  return {0}
end
local lease_until = now + lease
redis.call('HSET', key, 'l', lease_until)
if lease_until > expires_at then
  redis.call('HSET', key, 'e', lease_until)
  expire_at(key, lease_until, now)
end
return {1, lease_until}
