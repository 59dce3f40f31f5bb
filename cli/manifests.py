"""Reading manifests: a file, a directory of them, or standard input; multi-document YAML."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import yaml

SUFFIXES = (".yaml", ".yml", ".json")


@dataclass
class Document:
    source: str  # "file.yaml#2"
    obj: dict | None
    error: str | None = None


def read(path: str) -> Iterator[Document]:
    if path == "-":
        yield from _documents("stdin", sys.stdin.read())
        return
    p = Path(path)
    if p.is_dir():
        for child in sorted(c for c in p.iterdir() if c.suffix in SUFFIXES):
            yield from _documents(str(child), child.read_text())
    elif p.exists():
        yield from _documents(str(p), p.read_text())
    else:
        yield Document(path, None, f'the path "{path}" does not exist')


def _documents(source: str, text: str) -> Iterator[Document]:
    try:
        docs = list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        yield Document(source, None, f"error parsing {source}: {exc}")
        return
    for i, doc in enumerate(d for d in docs if d is not None):
        where = f"{source}#{i + 1}"
        if not isinstance(doc, dict):
            yield Document(where, None, f"error validating {where}: a manifest must be a map")
        elif doc.get("kind") == "List":
            for j, item in enumerate(doc.get("items") or []):
                yield Document(f"{where}.items[{j}]", item if isinstance(item, dict) else None)
        else:
            yield Document(where, doc)
