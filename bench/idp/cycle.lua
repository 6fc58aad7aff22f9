-- Sends requests that each carry one line of ITEMS_FILE, going round the lines: access
-- tokens for userinfo (as a Bearer header) or for introspection (in the form body).
--
-- Environment: ITEMS_FILE, METHOD (GET or POST), PATH_, and either BEARER=1 (the item
-- goes into "Authorization: Bearer") or BODY ("...{}...", a form) with AUTHORIZATION.
-- Argument: the wrk thread count.
local lib = dofile(os.getenv("BENCH_IDP_DIR") .. "/lib.lua")

wrk.method = os.getenv("METHOD") or "GET"
wrk.path = lib.env("PATH_")

local requests_ = {}
local index = 0

function setup(thread) lib.setup(thread) end

function init(args)
    local count = tonumber(args[1]) or 1
    local items = lib.share(lib.env("ITEMS_FILE"), thread_id or 0, count)
    local bearer = os.getenv("BEARER") == "1"
    local prefix, suffix = lib.template(os.getenv("BODY") or "")
    -- Pre-format every request once, so the client spends its time sending them.
    for i, item in ipairs(items) do
        if bearer then
            requests_[i] = wrk.format(nil, nil, { ["Authorization"] = "Bearer " .. item })
        else
            requests_[i] = wrk.format(nil, nil, {
                ["Authorization"] = lib.env("AUTHORIZATION"),
                ["Content-Type"] = "application/x-www-form-urlencoded",
            }, prefix .. item .. suffix)
        end
    end
end

function request()
    index = index % #requests_ + 1
    return requests_[index]
end
