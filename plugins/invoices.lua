-- GetInvoice[customer]: the open invoice amount of a customer, from an offline ledger.
local ledger = { A = 1200, B = 3400, C = 560 }

return {
  name = "GetInvoice",
  description = "顧客IDを受け取り、その顧客の請求額（円）を返す",
  run = function(customer)
    local id = customer:match("^%s*(.-)%s*$"):upper()
    local amount = ledger[id]
    if not amount then error("unknown customer '" .. id .. "'") end
    return tostring(amount)
  end,
}
