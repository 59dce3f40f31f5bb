"""Kubernetes' `$(VAR)` expansion of command, args and env values (third_party/forked/golang/expansion):
`$(NAME)` becomes the variable's value, or stays as written when there is none; `$$` is one `$`; any
other `$` is kept as it is, and so is a `$(` never closed.
"""
from __future__ import annotations

OPERATOR, OPENER, CLOSER = "$", "(", ")"


def expand(text: str, env: dict[str, str]) -> str:
    """`text` with every `$(NAME)` that `env` defines replaced by its value."""
    out, checkpoint, cursor = [], 0, 0
    while cursor < len(text):
        if text[cursor] == OPERATOR and cursor + 1 < len(text):
            out.append(text[checkpoint:cursor])
            read, is_var, advance = _read_name(text, cursor + 1)
            out.append(env.get(read, f"$({read})") if is_var else read)
            cursor += advance
            checkpoint = cursor + 1
        cursor += 1
    out.append(text[checkpoint:])
    return "".join(out)


def _read_name(text: str, at: int) -> tuple[str, bool, int]:
    """tryReadVariableName on text[at:]: (what was read, whether it names a variable, chars consumed)."""
    first = text[at]
    if first == OPERATOR:
        return OPERATOR, False, 1
    if first == OPENER:
        close = text.find(CLOSER, at + 1)
        if close >= 0:
            return text[at + 1:close], True, close - at + 1
        return OPERATOR + OPENER, False, 1
    return OPERATOR + first, False, 1


def expand_all(items: list[str] | None, env: dict[str, str]) -> list[str]:
    """Each of a command's or args' items expanded."""
    return [expand(item, env) for item in items or []]
