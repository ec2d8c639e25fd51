-- release: KEYS[1] = record; ARGV = token (decimal text). Reply: 1 or 0.
local key = KEYS[1]
local token = ARGV[1]
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
if s ~= 'I' or r[2] ~= token or expires_at <= now then
  return 0
end
-- The expiry stays as it is: a released record keeps its attempt count until then.
redis.call('HSET', key, 's', 'R')
redis.call('HDEL', key, 'l', 'c')
return 1
