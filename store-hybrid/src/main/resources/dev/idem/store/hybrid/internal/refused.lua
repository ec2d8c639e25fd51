-- refused: KEYS[1] = record; ARGV = identity, token, clock ms or '', pad ms, nonce, margin ms, wait.
-- The database has just refused the token (complete, release, extend or checkpoint). If the gate
-- shows that token's claim as predicted and wait = '1', the claim may still be on its way to the
-- database: reply P and change nothing (the caller retries once it has landed). Otherwise, if the
-- gate shows that token in progress it is behind the database and becomes U. Reply P, U or K.
-- wait = 'J': the database has just journaled a step of the token's claim. The gate keeps no
-- journal, so it must not answer from that token's record any more, whether it still shows it in
-- progress or a release of the token got here first (a RELEASED record would lead to a prediction
-- without the journal the next claim takes over): either becomes U.
local key, identity, token = KEYS[1], ARGV[1], ARGV[2]
local now = clock_now(ARGV[3])
local pad, nonce, margin, wait = tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6]), ARGV[7]
local r, foreign = load(key, identity)
if not foreign and live(r, now) and r.t == token and (r.s == 'I' or (wait == 'J' and r.s == 'R')) then
  if r.p and wait == '1' then
    return 'P'
  end
  unknown(key, identity, now, pad, r, nonce, r.e + margin, r.n, r.u)
  return 'U'
end
if wait == 'J' and not foreign and live(r, now) and r.s == 'U' then
  -- A new nonce: a claim that read the record before the journal write must not copy it in.
  unknown(key, identity, now, pad, r, nonce, r.e, r.n, r.u)
  return 'U'
end
return 'K'
