-- extendLease: KEYS[1] = record; ARGV = token (decimal text), lease ms.
-- Reply: {1, newLeaseUntil} or {0}.
local key = KEYS[1]
local token, lease = ARGV[1], tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local r = redis.call('HMGET', key, 's', 't', 'e')
local s, expires_at = r[1], tonumber(r[3])
if not s then
  return {0}
end
if expires_at == nil or not r[2] or (s ~= 'I' and s ~= 'C' and s ~= 'R') then
  return redis.error_reply('IDEMCORRUPT not an idem record (fields missing or malformed)')
end
if s ~= 'I' or r[2] ~= token or expires_at <= now then
  return {0}
end
local lease_until = now + lease
redis.call('HSET', key, 'l', lease_until)
if lease_until > expires_at then
  redis.call('HSET', key, 'e', lease_until)
  redis.call('PEXPIREAT', key, lease_until)
end
return {1, lease_until}
