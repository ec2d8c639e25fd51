-- fix: KEYS[1] = record; ARGV = identity, expected nonce, nonce, release ('1': one pending claim is
-- done), clock ms or '', pad ms, ms a U written here lasts at least, then the database's record: state (I, C or U),
-- fingerprint, token, attempt, created, lease, expires, outcome, kept ('1' if the outcome is left out).
-- Writes the database's record if the gate still holds what the caller saw (by nonce); if someone
-- else wrote the same knowledge meanwhile, keeps it; otherwise writes U. Reply W, S or U.
local key, identity, expect, nonce, release = KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local now = clock_now(ARGV[5])
local pad, until_ms = tonumber(ARGV[6]), now + tonumber(ARGV[7])
local state, fp, token, attempt = ARGV[8], ARGV[9], ARGV[10], tonumber(ARGV[11])
local created, lease, expires = tonumber(ARGV[12]), tonumber(ARGV[13]), tonumber(ARGV[14])
local outcome, x = ARGV[15], ARGV[16]
local r, foreign = load(key, identity)
local n, u = r.n, r.u
if release == '1' and n > 0 then
  n = n - 1
end
if foreign or (r.g or '') == expect then
  if state == 'U' then
    unknown(key, identity, now, pad, foreign and {} or r, nonce, until_ms, n, u)
    return 'U'
  end
  local rec = {s = state, f = fp, t = token, a = attempt, k = created, e = expires, g = nonce}
  if state == 'I' then
    rec.l = lease
  elseif state == 'C' then
    if x == '1' then
      rec.x = '1'
    else
      rec.o = outcome
    end
  end
  store(key, identity, now, pad, rec, n, u)
  return 'W'
end
if state ~= 'U' and r.s == state and r.t == token and r.a == attempt then
  if r.s then
    redis.call('HSET', key, 'n', num(n))
  end
  return 'S'
end
unknown(key, identity, now, pad, r, nonce, math.max(until_ms, expires), n, u)
return 'U'
