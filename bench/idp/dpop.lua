-- Sends each line of ITEMS_FILE ("item<TAB>proof", from dpop_proofs.py) exactly once, with
-- the proof in a DPoP header: the server accepts a proof's jti once, so a line sent twice
-- would be refused. Threads split the file; a thread out of lines stops, as in once.lua.
--
-- Environment: ITEMS_FILE, METHOD (default POST), PATH_, and either BODY ("...{}...", a form
-- the item goes into, sent with AUTHORIZATION) or DPOP_TOKEN=1 (the item is an access token
-- sent as "Authorization: DPoP item"). Argument: the wrk thread count.
local lib = dofile(os.getenv("BENCH_IDP_DIR") .. "/lib.lua")

wrk.method = os.getenv("METHOD") or "POST"
wrk.path = lib.env("PATH_")

local requests_, index = {}, 0
exhausted = 0

function setup(thread) lib.setup(thread) end

function init(args)
    local count = tonumber(args[1]) or 1
    local lines = lib.share(lib.env("ITEMS_FILE"), thread_id or 0, count)
    local as_token = os.getenv("DPOP_TOKEN") == "1"
    local prefix, suffix = lib.template(os.getenv("BODY") or "")
    for i, line in ipairs(lines) do
        local item, proof = string.match(line, "^([^\t]+)\t(.+)$")
        if as_token then
            requests_[i] = wrk.format(nil, nil, { ["Authorization"] = "DPoP " .. item, ["DPoP"] = proof })
        else
            requests_[i] = wrk.format(nil, nil, {
                ["Authorization"] = lib.env("AUTHORIZATION"),
                ["Content-Type"] = "application/x-www-form-urlencoded",
                ["DPoP"] = proof,
            }, prefix .. item .. suffix)
        end
    end
end

function request()
    index = index + 1
    local formatted = requests_[index]
    if formatted == nil then
        exhausted = 1
        wrk.thread:stop()
        return wrk.format("GET", "/healthz")
    end
    return formatted
end

function done(summary, latency, requests)
    local stopped = lib.sum("exhausted")
    if stopped > 0 then
        io.write(string.format("EXHAUSTED %d thread(s) ran out of pre-signed proofs\n", stopped))
    end
end
