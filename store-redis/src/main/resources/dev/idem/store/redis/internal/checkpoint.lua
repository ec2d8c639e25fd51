-- checkpoint: KEYS[1] = record; ARGV = token (decimal text), journal, clock ms or ''. Reply: 1 or 0.
-- Fenced by the token on an unexpired IN_PROGRESS record; lease and expiry stay, so a
-- repeat with the same token and bytes succeeds again.
local key = KEYS[1]
local token = ARGV[1]
local now = clock_now(ARGV[3])
local s, holder, expires_at, bad = fenced_fields(key)
if bad then
  return bad
end
if not s or s ~= 'I' or holder ~= token or expires_at <= now then
  return 0
end
redis.call('HSET', key, 'j', ARGV[2])
return 1
