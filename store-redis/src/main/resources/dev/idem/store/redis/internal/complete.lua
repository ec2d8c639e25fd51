-- complete: KEYS[1] = record; ARGV = token (decimal text), outcome, ttl ms. Reply: 1 or 0.
local key = KEYS[1]
local token, ttl = ARGV[1], tonumber(ARGV[3])
local now = server_now()
local s, holder, expires_at, bad = fenced_fields(key)
if bad then
  return bad
end
if not s then
  return 0
end
if expires_at <= now or holder ~= token then
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
