-- Signs in through POST /login with the form a browser got from the sign-in page
-- (prepare.py login): the sealed pending request, the CSRF token and its cookie, and the
-- address of a different seeded person on every request (user<i>@EMAIL_DOMAIN, i going
-- round USERS). A sign-in succeeded when the answer is a redirect (302/303: on to consent
-- or back to the app); the login page again (200) means it failed. done() prints both
-- counts, which run.sh turns into sign-ins per second.
--
-- Environment: LOGIN_REQUEST, LOGIN_CSRF_TOKEN, LOGIN_CSRF_COOKIE, LOGIN_EXTRA_FIELDS,
-- PASSWORD, EMAIL_DOMAIN, USERS. Argument: the wrk thread count.
local lib = dofile(os.getenv("BENCH_IDP_DIR") .. "/lib.lua")

wrk.method = "POST"
wrk.path = "/login"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Cookie"] = "portico_csrf=" .. lib.env("LOGIN_CSRF_COOKIE")

local prefix, suffix, users, next_user, step = "", "", 1, 0, 1
signed_in, failed = 0, 0

function setup(thread) lib.setup(thread) end

function init(args)
    step = tonumber(args[1]) or 1
    next_user = thread_id or 0
    users = tonumber(lib.env("USERS"))
    suffix = "%40" .. lib.env("EMAIL_DOMAIN")
    local extra = os.getenv("LOGIN_EXTRA_FIELDS") or ""
    prefix = "request=" .. lib.env("LOGIN_REQUEST") .. "&csrf_token=" .. lib.env("LOGIN_CSRF_TOKEN")
        .. "&password=" .. lib.env("PASSWORD") .. (extra ~= "" and ("&" .. extra) or "") .. "&email=user"
end

function request()
    local user = next_user % users
    next_user = next_user + step
    return wrk.format(nil, nil, nil, prefix .. user .. suffix)
end

function response(status, headers, body)
    if status == 302 or status == 303 then signed_in = signed_in + 1 else failed = failed + 1 end
end

function done(summary, latency, requests)
    io.write(string.format("SIGNED_IN %d\nFAILED %d\n", lib.sum("signed_in"), lib.sum("failed")))
end
