"""Patches, one algorithm in one package: `apply.py` picks the patch type of a request; `strategic.py`
is apimachinery's strategic merge (its list `order.py`, merge-key `lookup.py`, step `budget.py`),
`diff.py` the two-way diff `kubectl apply` sends, `mergekeys.py` the kinds' merge keys and strategies,
`jsonpatch.py` RFC 6902, `mergepatch.py` RFC 7386, `errors.py` their errors in Go's words."""
