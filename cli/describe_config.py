"""`kubus describe` of ConfigMaps and Secrets, as kubectl's describers: a ConfigMap's values and its
binary keys' sizes; a Secret's type and the size of each value, never the value."""
from __future__ import annotations

from api.config import sizes


def configmap_lines(cm: dict) -> list[str]:
    lines = ["", "Data", "===="]
    for key, value in sorted((cm.get("data") or {}).items()):
        lines += [f"{key}:", "----", value, ""]
    binary = {k: n for k, n in sizes(cm).items() if k in (cm.get("binaryData") or {})}
    lines += ["", "BinaryData", "===="] + [f"{key}: {n} bytes" for key, n in sorted(binary.items())]
    return lines


def secret_lines(secret: dict) -> list[str]:
    lines = ["", f"Type:  {secret.get('type') or 'Opaque'}", "", "Data", "===="]
    return lines + [f"{key}:  {n} bytes" for key, n in sorted(sizes(secret).items())]
