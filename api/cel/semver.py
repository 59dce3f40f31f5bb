"""Kubernetes' Semver library (apiserver `pkg/cel/library/semverlib.go`, since 1.33) with the parse rules and
error words of `github.com/blang/semver/v4`: `semver(s[, normalize])`, `isSemver(s[, normalize])`, and on a
Semver `major()`, `minor()`, `patch()`, `isGreaterThan`, `isLessThan`, `compareTo` (build metadata ignored)."""
from __future__ import annotations

from dataclasses import dataclass

from celpy import celtypes
from celpy.evaluation import CELEvalError

NUMBERS = frozenset("0123456789")
ALPHANUM = NUMBERS | frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-")


@dataclass(frozen=True)
class Semver:
    """`kubernetes.Semver`. Equal when every part but the build metadata is equal."""
    major: int
    minor: int
    patch: int
    pre: tuple[str, ...] = ()
    build: tuple[str, ...] = ()

    def _key(self):
        # a release sorts after its pre-releases; numeric identifiers sort before alphanumeric ones
        pre = tuple((0, int(p), "") if set(p) <= NUMBERS else (1, 0, p) for p in self.pre)
        return self.major, self.minor, self.patch, not self.pre, pre

    def compare(self, other: "Semver") -> int:
        a, b = self._key(), other._key()
        return (a > b) - (a < b)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semver) and self.compare(other) == 0

    def __hash__(self) -> int:
        return hash(self._key())


def _number(text: str, what: str) -> int:
    if not set(text) <= NUMBERS:
        raise ValueError(f'Invalid character(s) found in {what} number "{text}"')
    if len(text) > 1 and text[0] == "0":
        raise ValueError(f'{what.capitalize()} number must not contain leading zeroes "{text}"')
    if not text:
        raise ValueError('strconv.ParseUint: parsing "": invalid syntax')
    return int(text)


def _pre(part: str) -> str:
    if not part:
        raise ValueError("Prerelease is empty")
    if set(part) <= NUMBERS:
        if len(part) > 1 and part[0] == "0":
            raise ValueError(f'Numeric PreRelease version must not contain leading zeroes "{part}"')
    elif not set(part) <= ALPHANUM:
        raise ValueError(f'Invalid character(s) found in prerelease "{part}"')
    return part


def _build(part: str) -> str:
    if not part:
        raise ValueError("Build meta data is empty")
    if not set(part) <= ALPHANUM:
        raise ValueError(f'Invalid character(s) found in build meta data "{part}"')
    return part


def parse(text: str) -> Semver:
    """blang/semver's Parse: ValueError with its words."""
    if not text:
        raise ValueError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise ValueError("No Major.Minor.Patch elements found")
    patch, build, pre = parts[2], (), ()
    if "+" in patch:
        patch, rest = patch.split("+", 1)
        build = tuple(_build(p) for p in rest.split("."))
    if "-" in patch:
        patch, rest = patch.split("-", 1)
        pre = tuple(_pre(p) for p in rest.split("."))
    return Semver(_number(parts[0], "major"), _number(parts[1], "minor"), _number(patch, "patch"), pre, build)


def normalize_and_parse(text: str) -> Semver:
    """Kubernetes' normalizeAndParse: no 'v' prefix, no leading zeros, missing minor and patch filled in."""
    parts = text.removeprefix("v").split(".", 2)
    for i, part in enumerate(parts):
        if len(part) > 1:
            part = part.lstrip("0")
            parts[i] = part if part and part[0] in NUMBERS else "0" + part
    if len(parts) < 3:
        if set(parts[-1]) & set("+-"):
            raise ValueError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return parse(".".join(parts))


def semver(text, normalize=False):
    try:
        return (normalize_and_parse if normalize else parse)(str(text))
    except ValueError as exc:
        return CELEvalError(str(exc), ValueError, None)


def is_semver(text, normalize=False):
    return celtypes.BoolType(not isinstance(semver(text, normalize), CELEvalError))


FUNCTIONS = {
    "semver": semver, "isSemver": is_semver,
    "major": lambda v: celtypes.IntType(v.major), "minor": lambda v: celtypes.IntType(v.minor),
    "patch": lambda v: celtypes.IntType(v.patch),
}
COMPARISONS = {
    "isGreaterThan": lambda v, o: celtypes.BoolType(v.compare(o) > 0),
    "isLessThan": lambda v, o: celtypes.BoolType(v.compare(o) < 0),
    "compareTo": lambda v, o: celtypes.IntType(v.compare(o)),
}
