-- service_status[service]: whether a service is up, from an offline status page (workflows/support_router.yaml).
local status = {
  login = "login is degraded since 09:12 UTC; a fix is being deployed",
  billing = "billing is operational",
}

return {
  name = "service_status",
  description = "Tells whether a service (login, billing) is operational",
  run = function(service)
    local name = service:match("^%s*(.-)%s*$"):lower()
    return status[name] or ("no service named " .. name)
  end,
}
