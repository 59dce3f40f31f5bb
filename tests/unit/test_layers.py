"""The house's layers, kept by a test (kopf's import contracts, read with `ast`): every import of every
product module — lazy ones inside functions included — against the rules of DESIGN.md's "Actors":
`cli` and `actors` → `runtime` → `bus`, with `api` and `config` below all of them; `store` stands on the
same runtime; only `bus` speaks pika; an actor never imports another actor; product code never
imports `tests`; no module grows past ~330 lines."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The layer of each product package: a package imports its own modules and those of lower layers only.
# The cli is the top of the product (it names the gateway's CA and rollout's revision logic, as kubectl
# vendors the controllers' utilities); `testkit` (what benches and tests share) stands on the product, and
# the benches stand on everything, as the tests do.
LAYERS = {"api": 0, "config": 0, "bus": 1, "runtime": 2, "store": 3, "actors": 3, "cli": 4, "testkit": 5,
          "bench": 6}
PRODUCT = frozenset(LAYERS) - {"testkit", "bench"}
KITS = ("tests", "testkit", "bus.testkit")  # what only benches and tests import
TOP_LEVEL = set(LAYERS) | {"tests"}
MAX_LINES = 330
GENERATED = "_pb2"  # gRPC stubs `make proto` writes from a .proto: not read, not split

@dataclass(frozen=True)
class Module:
    name: str  # dotted: actors.gateway.paths
    path: Path
    lines: int
    imports: frozenset[str]  # dotted names of every module an import statement names

    @property
    def package(self) -> str:
        return self.name.split(".")[0]

    def imported_packages(self) -> set[str]:
        return {name.split(".")[0] for name in self.imports}


def _imports(tree: ast.AST) -> frozenset[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return frozenset(names)


@cache
def modules() -> tuple[Module, ...]:
    found = []
    for package in LAYERS:
        for path in sorted((ROOT / package).rglob("*.py")):
            text = path.read_text()
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found.append(Module(name, path, len(text.splitlines()), _imports(ast.parse(text, str(path)))))
    return tuple(found)


def _listing(offenders: list[str]) -> str:
    return "\n  " + "\n  ".join(sorted(offenders))


def test_the_walk_sees_every_package_and_lazy_imports():
    names = {module.name: module for module in modules()}
    assert {module.package for module in names.values()} == set(LAYERS)
    assert "pika" in names["bus.connection"].imports
    assert "actors.gateway.tls" in names["cli.main"].imports  # an import inside a function


def test_only_bus_imports_pika():
    offenders = [module.name for module in modules()
                 if module.package != "bus" and "pika" in module.imported_packages()]
    assert not offenders, f"only bus/ may import pika; these do:{_listing(offenders)}"


@pytest.mark.parametrize("package", LAYERS)
def test_a_package_imports_only_the_layers_below_it(package):
    offenders = [f"{module.name} imports {other}" for module in modules() if module.package == package
                 for other in module.imported_packages() & set(LAYERS)
                 if other != package and LAYERS[other] >= LAYERS[package]]
    assert not offenders, f"{package}/ may import only layers below it; these reach up or across:{_listing(offenders)}"


def _actor(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if parts[0] == "actors" and len(parts) > 2 else None


def test_an_actor_never_imports_another_actor():
    offenders = [f"{module.name} imports {name}" for module in modules() if _actor(module.name)
                 for name in module.imports if _actor(name) not in (None, _actor(module.name))]
    assert not offenders, f"an actor never imports another actor; shared rules go below them:{_listing(offenders)}"


def test_product_code_never_imports_tests_or_the_kit():
    offenders = [f"{module.name} imports {name}" for module in modules()
                 for name in module.imports if name.startswith(KITS)
                 and (module.package in PRODUCT and module.name != "bus.testkit" or name.split(".")[0] == "tests")]
    assert not offenders, f"product code imports neither tests/ nor the test kit; benches import only the kit:" \
                          f"{_listing(offenders)}"


@pytest.mark.parametrize("package", LAYERS)
def test_no_module_over_the_limit(package):
    offenders = [f"{module.path.relative_to(ROOT)}: {module.lines} lines" for module in modules()
                 if module.package == package and module.lines > MAX_LINES and GENERATED not in module.name]
    assert not offenders, f"split these by job (at most ~{MAX_LINES} lines each):{_listing(offenders)}"
