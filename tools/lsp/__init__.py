"""Language servers: diagnostics after an edit and the lsp tool, spoken to through pygls."""
