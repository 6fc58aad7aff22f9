-- One fixed POST, sent over and over: the client-credentials grant.
--
-- Environment: PATH_, BODY, AUTHORIZATION (a Basic header value).
local lib = dofile(os.getenv("BENCH_IDP_DIR") .. "/lib.lua")

wrk.method = "POST"
wrk.path = lib.env("PATH_")
wrk.body = lib.env("BODY")
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = lib.env("AUTHORIZATION")
