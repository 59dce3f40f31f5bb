"""A commands batch whose envelopes are as an apiserver builds them is taken without the model; every
other batch is judged by the model, so what is refused, and why, stays the model's."""
from hypothesis import given, settings, strategies as st

from bus.codec import DecodeError
from store import inbox


class Delivery:
    type = "commands"

    def __init__(self, body):
        self.body = body


short = st.text(max_size=70)
value = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), short, st.binary(max_size=4),
                  st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.text(min_size=200, max_size=300))
envelope = st.fixed_dictionaries(
    {"user": st.one_of(short, value), "command": st.one_of(st.just({"verb": "get"}), value, st.dictionaries(
        st.one_of(st.text(max_size=2), st.binary(max_size=2)), st.integers(), max_size=2))},
    optional={"id": st.one_of(short, value), "reply_to": st.one_of(short, value), "extra": value,
              "correlation_id": st.one_of(short, value), "expires": st.one_of(st.floats(allow_nan=False), value)})


def _by_model(msg):
    try:
        return [inbox._inner(msg, env) for env in inbox._envelopes(msg.body)]
    except DecodeError:
        return None


@settings(max_examples=400, deadline=None)
@given(st.lists(envelope, max_size=4))
def test_taken_by_hand_only_as_the_model_takes_it(body):
    msg = Delivery(body)
    quick = inbox._as_built(msg)
    assert quick is None or quick == _by_model(msg)


def test_the_apiserver_s_envelopes_are_taken_by_hand():
    body = [{"id": "m1", "user": "alice", "reply_to": "amq.rabbitmq.reply-to.x", "correlation_id": "c1",
             "expires": 1.5, "command": {"verb": "get"}}, {"user": "bob", "command": {}, "expires": None}]
    msg = Delivery(body)
    assert inbox._as_built(msg) == _by_model(msg) and len(_by_model(msg)) == 2


def test_a_long_multibyte_user_goes_to_the_model():
    msg = Delivery([{"user": "é" * 128, "command": {}}])  # 256 bytes: one more than an AMQP short string
    assert inbox._as_built(msg) is None and _by_model(msg) is None


def test_a_command_with_a_bytes_key_goes_to_the_model():
    msg = Delivery([{"user": "alice", "command": {b"verb": "get"}}])
    assert inbox._as_built(msg) is None and _by_model(msg) is None
