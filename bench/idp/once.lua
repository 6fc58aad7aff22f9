-- POSTs each line of ITEMS_FILE exactly once, put into BODY ("...{}..."): pre-minted
-- authorization codes or refresh tokens, which are single use. Threads split the file.
-- When a thread has used all of its share it stops, and done() says so: wrk still divides
-- by the whole duration, so that run's rate is understated (run.sh sizes the files at
-- CODES_PER_SECOND / REFRESH_PER_SECOND times DURATION to leave room).
--
-- Environment: ITEMS_FILE, BODY, AUTHORIZATION (a Basic header value), PATH_ (default
-- /oauth/token). Argument: the wrk thread count.
local lib = dofile(os.getenv("BENCH_IDP_DIR") .. "/lib.lua")

wrk.method = "POST"
wrk.path = os.getenv("PATH_") or "/oauth/token"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = lib.env("AUTHORIZATION")

local items, index, prefix, suffix = {}, 0, "", ""
exhausted = 0

function setup(thread) lib.setup(thread) end

function init(args)
    local count = tonumber(args[1]) or 1
    items = lib.share(lib.env("ITEMS_FILE"), thread_id or 0, count)
    prefix, suffix = lib.template(lib.env("BODY"))
end

function request()
    index = index + 1
    local item = items[index]
    if item == nil then
        -- Out of items: stop this thread rather than send a used one again.
        exhausted = 1
        wrk.thread:stop()
        item = "exhausted"
    end
    return wrk.format(nil, nil, nil, prefix .. item .. suffix)
end

function done(summary, latency, requests)
    local stopped = lib.sum("exhausted")
    if stopped > 0 then
        io.write(string.format("EXHAUSTED %d thread(s) ran out of pre-minted items\n", stopped))
    end
end
