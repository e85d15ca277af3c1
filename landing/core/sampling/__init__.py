"""A run's rules: how many DOIs each owner gets, the run's ledger records, its progress, its payloads."""
