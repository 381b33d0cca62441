-- The ticket API as one tool: look a ticket up, or comment on it. The workflow grants the API (allow: http:) and
-- adds its token; this script names only paths under it and never sees the token.
return {
  name = "tickets",
  description = "Looks up a support ticket by its number (its title and status), or adds a comment to it.",
  parameters = {
    type = "object",
    properties = {
      id = { type = "integer", minimum = 1, description = "The ticket's number." },
      comment = { type = "string", description = "A comment to add to the ticket; leave out to look it up." },
    },
    required = { "id" },
  },
  run = function(args)
    local path = "tickets/" .. math.tointeger(args.id)
    local r
    if args.comment then
      r = engine.http.request{ method = "POST", url = path .. "/comments", json = { text = args.comment } }
    else
      r = engine.http.request{ url = path }
    end
    if r.status >= 400 then
      error(("the ticket API answered %d: %s"):format(r.status, r.json and r.json.error or r.body), 0)
    end
    if args.comment then return ("comment %d added to ticket %d"):format(r.json.comment, r.json.ticket) end
    return { id = r.json.id, title = r.json.title, status = r.json.status }
  end,
}
