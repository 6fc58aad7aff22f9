-- The soak's mixed load: client_credentials, refresh rotation (pre-minted tokens, each sent
-- once; when a thread runs out it sends userinfo instead), userinfo with a JWT access token,
-- and a sign-in (POST /login) every SIGN_IN_EVERY requests. Counts answers by class; a 503
-- without Retry-After counts as a bad 5xx.
--
-- Environment (bench/soak/run.sh exports it): BENCH_IDP_DIR, AUTHORIZATION, PRODUCT_SCOPE,
-- ACCESS_FILE, REFRESH_FILE, LOGIN_* and USERS/EMAIL_DOMAIN/PASSWORD as for login.lua,
-- SIGN_IN_EVERY (default 50), RATE (requests per second offered by all threads together; unset
-- or 0 sends as fast as answers come back). Argument: the wrk thread count.
--
-- With RATE, each thread keeps a timetable of one request every threads/RATE seconds, and
-- delay() holds a connection that is free until its slot comes: the load is open-loop as long as
-- a connection is free when a slot comes. When every connection is waiting for an answer, the
-- slot is missed rather than sent late in a burst (a slot more than 100 ms late is dropped and
-- counted as MISSED), so the rate actually sent is SENT / duration.
local lib = dofile(os.getenv("BENCH_IDP_DIR") .. "/lib.lua")
local ffi = require("ffi")
ffi.cdef([[
    typedef struct { long tv_sec; long tv_nsec; } soak_timespec;
    int clock_gettime(int clock, soak_timespec *now);
]])
local clock_now = ffi.new("soak_timespec")
local function now_ms()
    ffi.C.clock_gettime(1, clock_now) -- CLOCK_MONOTONIC
    return tonumber(clock_now.tv_sec) * 1000 + tonumber(clock_now.tv_nsec) / 1e6
end
local interval_ms, next_slot = nil, nil

local access, refresh = {}, {}
local access_index, refresh_index, counter, next_user, step, users = 0, 0, 0, 0, 1, 1
local sign_in_every = tonumber(os.getenv("SIGN_IN_EVERY") or "50")
local form = { ["Content-Type"] = "application/x-www-form-urlencoded" }
local cc_request, login_prefix, login_suffix
ok, shed, bad5xx, client4xx, sent, missed = 0, 0, 0, 0, 0, 0

function setup(thread) lib.setup(thread) end

function init(args)
    step = tonumber(args[1]) or 1
    local rate = tonumber(os.getenv("RATE") or "0")
    if rate > 0 then interval_ms = 1000 * step / rate end
    next_user = thread_id or 0
    access = lib.share(lib.env("ACCESS_FILE"), thread_id or 0, step)
    refresh = lib.share(lib.env("REFRESH_FILE"), thread_id or 0, step)
    users = tonumber(lib.env("USERS"))
    cc_request = wrk.format("POST", "/oauth/token", {
        ["Authorization"] = lib.env("AUTHORIZATION"), ["Content-Type"] = "application/x-www-form-urlencoded",
    }, "grant_type=client_credentials&scope=" .. lib.env("PRODUCT_SCOPE"))
    login_prefix = "request=" .. lib.env("LOGIN_REQUEST") .. "&csrf_token=" .. lib.env("LOGIN_CSRF_TOKEN")
        .. "&password=" .. lib.env("PASSWORD") .. "&email=user"
    login_suffix = "%40" .. lib.env("EMAIL_DOMAIN")
end

local function userinfo()
    access_index = access_index % #access + 1
    return wrk.format("GET", "/oauth/userinfo", { ["Authorization"] = "Bearer " .. access[access_index] })
end

function delay()
    if interval_ms == nil then return 0 end
    local now = now_ms()
    if next_slot == nil then next_slot = now + interval_ms * math.random() end
    if next_slot < now - 100 then
        local late = math.floor((now - next_slot) / interval_ms)
        missed = missed + late
        next_slot = next_slot + late * interval_ms
    end
    local wait = next_slot - now
    next_slot = next_slot + interval_ms
    if wait <= 0 then return 0 end
    return math.floor(wait)
end

function request()
    sent = sent + 1
    counter = counter + 1
    if counter % sign_in_every == 0 then
        local user = next_user % users
        next_user = next_user + step
        return wrk.format("POST", "/login", {
            ["Content-Type"] = "application/x-www-form-urlencoded",
            ["Cookie"] = "portico_csrf=" .. lib.env("LOGIN_CSRF_COOKIE"),
        }, login_prefix .. user .. login_suffix)
    end
    local kind = counter % 3
    if kind == 0 then return cc_request end
    if kind == 1 and refresh_index < #refresh then
        refresh_index = refresh_index + 1
        return wrk.format("POST", "/oauth/token", {
            ["Authorization"] = lib.env("AUTHORIZATION"), ["Content-Type"] = "application/x-www-form-urlencoded",
        }, "grant_type=refresh_token&refresh_token=" .. refresh[refresh_index])
    end
    return userinfo()
end

function response(status, headers, body)
    if status < 400 then
        ok = ok + 1
    elseif status == 503 and (headers["Retry-After"] or headers["retry-after"]) then
        shed = shed + 1
    elseif status >= 500 then
        bad5xx = bad5xx + 1
    else
        client4xx = client4xx + 1
    end
end

function done(summary, latency, requests)
    io.write(string.format("OK %d\nSHED_503 %d\nBAD_5XX %d\nCLIENT_4XX %d\nSENT %d\nMISSED %d\n",
        lib.sum("ok"), lib.sum("shed"), lib.sum("bad5xx"), lib.sum("client4xx"), lib.sum("sent"),
        lib.sum("missed")))
end
