-- wrk script for the flood through nginx (tests/cluster/test_proxy_overload.py and
-- bench/idp/proxy-flood.sh): client-credentials grants, POST /oauth/token with HTTP Basic,
-- from one address. Counts answers by kind in each thread and writes the sums to the file
-- FLOOD_OUT as `name value` lines, so a caller can check every 5xx was a 503 with Retry-After.
--
--   FLOOD_AUTH   the Authorization header value ("Basic ...")
--   FLOOD_OUT    where done() writes the counts

local threads = {}

function setup(thread)
    table.insert(threads, thread)
end

function init(args)
    wrk.method = "POST"
    wrk.path = "/oauth/token"
    wrk.headers["Authorization"] = os.getenv("FLOOD_AUTH")
    wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
    wrk.body = "grant_type=client_credentials"
    ok, s4xx, s502, s503, s503_bare, s5xx_other, other = 0, 0, 0, 0, 0, 0, 0
end

function response(status, headers, body)
    if status >= 200 and status < 300 then
        ok = ok + 1
    elseif status == 502 then
        s502 = s502 + 1
    elseif status == 503 then
        s503 = s503 + 1
        if headers["Retry-After"] == nil and headers["retry-after"] == nil then s503_bare = s503_bare + 1 end
    elseif status >= 500 then
        s5xx_other = s5xx_other + 1
    elseif status >= 400 then
        s4xx = s4xx + 1
    else
        other = other + 1
    end
end

function done(summary, latency, requests)
    local names = { "ok", "s4xx", "s502", "s503", "s503_bare", "s5xx_other", "other" }
    local file = assert(io.open(os.getenv("FLOOD_OUT"), "w"))
    for _, name in ipairs(names) do
        local total = 0
        for _, thread in ipairs(threads) do total = total + (thread:get(name) or 0) end
        file:write(name, " ", total, "\n")
    end
    local errors = summary.errors
    file:write("connect_errors ", errors.connect, "\n", "read_errors ", errors.read, "\n",
        "write_errors ", errors.write, "\n", "timeouts ", errors.timeout, "\n",
        "requests ", summary.requests, "\n", "duration_us ", summary.duration, "\n")
    file:close()
end
