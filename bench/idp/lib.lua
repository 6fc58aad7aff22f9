-- Helpers shared by the bench/idp wrk scripts (loaded with dofile by each of them).
--
-- Every wrk thread has its own Lua state. setup() (in wrk's main state) numbers the
-- threads; init() in each thread then takes its own share of an items file, so that no
-- pre-minted code or refresh token is sent by two threads. The scripts get their
-- settings from the environment (bench/idp/run.sh exports them) and the thread count as
-- the first argument after `--`.

local lib = {}

lib.threads = {}

-- Numbers the threads; call from setup(thread).
function lib.setup(thread)
    thread:set("thread_id", #lib.threads)
    table.insert(lib.threads, thread)
end

-- The lines of `path` that belong to thread `id` of `count` (every count-th line).
function lib.share(path, id, count)
    local items, line_number = {}, 0
    for line in io.lines(path) do
        if line ~= "" then
            if line_number % count == id then items[#items + 1] = line end
            line_number = line_number + 1
        end
    end
    return items
end

-- An environment variable that must be set.
function lib.env(name)
    local value = os.getenv(name)
    if value == nil or value == "" then error("bench/idp: environment variable " .. name .. " is not set") end
    return value
end

-- The sum of the global `name` over every thread, from done().
function lib.sum(name)
    local total = 0
    for _, thread in ipairs(lib.threads) do total = total + (thread:get(name) or 0) end
    return total
end

-- Splits "prefix{}suffix" around the placeholder.
function lib.template(text)
    local first, last = string.find(text, "{}", 1, true)
    if first == nil then return text, "" end
    return string.sub(text, 1, first - 1), string.sub(text, last + 1)
end

return lib
