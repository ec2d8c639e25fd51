-- extended: KEYS[1] = record; ARGV = identity, token, clock ms or '', pad ms, nonce, lease deadline ms
-- (a lower bound of the database's, on the gate's clock), ms a U written here lasts at least.
-- The database has just extended the token's lease. Reply W, K or U.
local key, identity, token = KEYS[1], ARGV[1], ARGV[2]
local now = clock_now(ARGV[3])
local pad, nonce, lease, until_ms = tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6]), now + tonumber(ARGV[7])
local r, foreign = load(key, identity)
if foreign then
  redis.call('DEL', key)
  unknown(key, identity, now, pad, {}, nonce, until_ms, 0, 0)
  return 'U'
end
local here = live(r, now)
if here and r.s == 'I' and r.t == token then
  r.l, r.e, r.p, r.g = lease, math.max(r.e, lease), nil, nonce
  store(key, identity, now, pad, r, r.n, r.u)
  return 'W'
end
-- U included: a new nonce, so no claim that read the database before the extension writes it back.
unknown(key, identity, now, pad, here and r or {}, nonce, until_ms, r.n, r.u)
return 'U'
