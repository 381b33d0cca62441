-- refund_status[invoice]: the refund state of an invoice, from an offline ledger (workflows/support_router.yaml).
local refunds = {
  ["INV-1042"] = "a refund of 49.00 EUR for INV-1042 was approved on 2026-11-20 and reaches the card in 3-5 days",
  ["INV-2001"] = "INV-2001 has no refund: it was paid once",
}

return {
  name = "refund_status",
  description = "Looks up the refund of an invoice by its number, e.g. INV-1042",
  run = function(invoice)
    local id = invoice:match("^%s*(.-)%s*$"):upper()
    return refunds[id] or ("no invoice " .. id .. " in the ledger")
  end,
}
