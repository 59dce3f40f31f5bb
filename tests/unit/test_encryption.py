"""Encryption at rest: the EncryptionConfiguration, the aesgcm values, and a SQLite file that holds
no Secret in clear (k8s-security.md, encryption at rest)."""
from __future__ import annotations

import base64

import msgpack
import pytest

from api.registry import KINDS
from bus import codec
from config import encryption
from config.encryption import EncryptionConfig
from store.backend import Applied
from store.encryption import PREFIX, SealError, Sealer
from store.records import Change, Entry
from store.sqlite import CLEAR, SqliteBackend

KEY1, KEY2 = (("key1", b"1" * 32), ("key2", b"2" * 32))


def sealer(*keys, write_clear=False) -> Sealer:
    return Sealer(EncryptionConfig(("secrets",), tuple(keys), write_clear))


def test_a_value_round_trips_and_names_its_key():
    value = sealer(KEY1).seal(b"hunter2", "Secret/ns/s")
    assert value.startswith(PREFIX + b"key1:") and b"hunter2" not in value
    assert sealer(KEY1).open(value, "Secret/ns/s") == b"hunter2"


def test_after_a_rotation_the_new_key_writes_and_the_old_still_reads():
    old = sealer(KEY1).seal(b"before", "Secret/ns/s")
    rotated = sealer(KEY2, KEY1)
    assert rotated.open(old, "Secret/ns/s") == b"before"
    assert rotated.seal(b"after", "Secret/ns/s").startswith(PREFIX + b"key2:")


@pytest.mark.parametrize("value, place, words", [
    pytest.param(sealer(KEY2).seal(b"x", "Secret/ns/s"), "Secret/ns/s", "the key 'key2'", id="key-removed"),
    pytest.param(sealer(KEY1).seal(b"x", "Secret/ns/s"), "Secret/ns/other", "altered or moved", id="moved-row"),
    pytest.param(sealer(KEY1).seal(b"x", "Secret/ns/s")[:-1] + b"?", "Secret/ns/s", "altered", id="tampered"),
])
def test_what_cannot_be_opened_is_refused_with_a_reason(value, place, words):
    with pytest.raises(SealError, match=words):
        sealer(KEY1).open(value, place)


def test_identity_first_writes_clear_and_clear_values_stay_readable():
    assert sealer(KEY1, write_clear=True).seal(b"x", "p") == b"x"
    assert sealer(KEY1).open(b"\x81\xa1a\x01", "p") == b"\x81\xa1a\x01"


def test_a_fresh_configuration_is_owner_only_and_holds_one_aes_256_key(tmp_path):
    path = tmp_path / "enc.yaml"
    config = encryption.ensure(path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert config.resources == ("secrets",) and [len(k) for _, k in config.keys] == [32] and not config.write_clear
    assert encryption.ensure(path) == config  # made once


@pytest.mark.parametrize("doc, words", [
    pytest.param({"kind": "Other"}, "kind EncryptionConfiguration", id="kind"),
    pytest.param({"kind": "EncryptionConfiguration", "resources": [{"providers": [{"kms": {}}]}]}, "not one kubus",
                 id="kms"),
    pytest.param({"kind": "EncryptionConfiguration", "resources": [{"providers": [
        {"aesgcm": {"keys": [{"name": "k", "secret": base64.b64encode(b"short").decode()}]}}]}]}, "16, 24 or 32",
                 id="short-key"),
])
def test_a_bad_configuration_says_why(doc, words):
    with pytest.raises(ValueError, match=words):
        encryption.parse(doc)


def change(kind: str, rev: int, obj: dict) -> Change:
    oid = (kind, "ns", obj["metadata"]["name"])
    return Change(rev, "ADDED", kind, oid, 0, None, Entry(obj, f"{kind.lower()}.ns.-", codec.encode(obj)))


def test_the_database_file_holds_no_secret_in_clear_and_reads_it_back(tmp_path):
    path = tmp_path / "s.db"
    secret = {"kind": "Secret", "metadata": {"name": "s"}, "data": {"p": base64.b64encode(b"TOPSECRET").decode()}}
    cm = {"kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"p": "PLAINCONFIG"}}
    changes = [change("Secret", 1, secret), change("ConfigMap", 2, cm)]
    backend = SqliteBackend(path, sealer=sealer(KEY1))
    backend.commit(changes, [c.event() for c in changes], [Applied("id1", 1.0, codec.encode(secret), "Secret")], 0)
    backend.close()
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert b"PLAINCONFIG" in stored and secret["data"]["p"].encode() not in stored
    again = SqliteBackend(path, sealer=sealer(KEY1))
    assert {oid: obj for oid, obj, _ in again.load()[2]} == {("Secret", "ns", "s"): secret,
                                                             ("ConfigMap", "ns", "c"): cm}
    assert [msgpack.unpackb(row.event)["object"] for row in again.log_after(0)] == [secret, cm]
    assert [msgpack.unpackb(a.reply) for a in again.load_applied()] == [secret]
    with pytest.raises(SealError):
        list(SqliteBackend(path, sealer=CLEAR).load()[2])


def test_every_resource_the_configuration_may_name_is_a_core_kind():
    assert Sealer(EncryptionConfig(("secrets", "configmaps"), (KEY1,))).kinds == {"Secret", "ConfigMap"}
    assert "Secret" in KINDS
