"""The users file: the people of a cluster, in the spirit of Kubernetes' static token file.

```yaml
- name: alice
  password: s3cret          # or `token:`; either is the broker password of `{c}.user.alice`
  groups: [team-a, system:masters]
```

Names are Kubernetes user names, each once; `system:` is Kubernetes' own prefix and is refused.
Every person is also in `system:authenticated` (added by `config.identities`, not written here).
"""
from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, RootModel, SecretStr, field_validator, model_validator

RESERVED_PREFIX = "system:"
NAME_PATTERN = r"^[^\x00-\x1f\x7f]+$"  # printable: it becomes part of a broker user and a queue name


class UserEntry(BaseModel):
    """One person: name, credential, groups."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=128, pattern=NAME_PATTERN)
    password: SecretStr | None = Field(None, min_length=8)
    token: SecretStr | None = Field(None, min_length=8)
    groups: tuple[str, ...] = ()

    @field_validator("name")
    @classmethod
    def _not_reserved(cls, name: str) -> str:
        if name.startswith(RESERVED_PREFIX):
            raise ValueError(f"{name!r}: the prefix {RESERVED_PREFIX} is reserved for the system")
        return name

    @field_validator("groups")
    @classmethod
    def _groups(cls, groups: tuple[str, ...]) -> tuple[str, ...]:
        if any(not g or not g.isprintable() for g in groups):
            raise ValueError("a group is a non-empty printable string")
        return tuple(dict.fromkeys(groups))

    @model_validator(mode="after")
    def _one_credential(self) -> "UserEntry":
        if (self.password is None) == (self.token is None):
            raise ValueError(f"{self.name!r}: give exactly one of `password` and `token`")
        return self

    @property
    def secret(self) -> str:
        """The broker password: the password, or the token."""
        return (self.password or self.token).get_secret_value()


class UsersFile(RootModel[list[UserEntry]]):
    @model_validator(mode="after")
    def _distinct(self) -> "UsersFile":
        names = [user.name for user in self.root]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"listed more than once: {', '.join(twice)}")
        return self


def parse_users(data: object) -> list[UserEntry]:
    """The users of a parsed file (`None`, an empty file, is no users)."""
    return UsersFile.model_validate(data or []).root


def load_users(path: str | Path) -> list[UserEntry]:
    return parse_users(yaml.safe_load(Path(path).read_text()))


def people(users: list[UserEntry]) -> dict[str, tuple[str, ...]]:
    """name -> groups, as `config.identities.identity_of` takes them."""
    return {u.name: u.groups for u in users}
