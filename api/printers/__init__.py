"""kubectl's tables: `columns.py` the header, row and table of any kind, `workloads.py` and
`networking.py`, `config.py` the columns of each kind."""
