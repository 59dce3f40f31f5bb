"""The CEL grammar's LALR tables are kept in a file of the user's own and read back by the next process;
a damaged file is analysed again, not trusted."""
from __future__ import annotations

from api.cel import syntax


def test_the_tables_are_kept_and_a_damaged_file_is_made_again(tmp_path, monkeypatch):
    monkeypatch.setattr(syntax, "TABLES", tmp_path / "kubus" / "tables.pickle")
    first = syntax.Parser()
    kept = syntax.TABLES.read_bytes()
    assert kept and first.parse("a.?b == optional.none()")
    assert syntax.Parser().parse("[1, 2].size() > 1")  # from the file
    syntax.TABLES.write_bytes(kept.splitlines()[0] + b"\nnot a pickle")
    assert syntax.Parser().parse("x in [1]")
    assert b"not a pickle" not in syntax.TABLES.read_bytes()  # analysed again and written whole
    assert syntax.Parser().parse("size(x) == 1")
