-- complete: KEYS[1] = record; ARGV = token (decimal text), outcome, ttl ms. Reply: 1 or 0.
local key = KEYS[1]
local token, ttl = ARGV[1], tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local r = redis.call('HMGET', key, 's', 't', 'e')
local s, expires_at = r[1], tonumber(r[3])
if not s then
  return 0
end
if expires_at == nil or not r[2] or (s ~= 'I' and s ~= 'C' and s ~= 'R') then
  return redis.error_reply('IDEMCORRUPT not an idem record (fields missing or malformed)')
end
if expires_at <= now or r[2] ~= token then
  return 0
end
if s == 'C' then
  return 1
end
if s ~= 'I' then
  return 0
end
local expires = now + ttl
redis.call('HSET', key, 's', 'C', 'o', ARGV[2], 'e', expires)
redis.call('HDEL', key, 'l', 'c')
redis.call('PEXPIREAT', key, expires)
return 1
