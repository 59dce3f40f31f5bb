"""A group commit takes up to GROUP_COMMANDS commands, whole messages: a message is acked once every
command of it is answered, so its commands never straddle two commits."""
from store.actor import GROUP_COMMANDS, _first_group
from store.inbox import Command


def _commands(sizes: list[int]) -> list[Command]:
    """Commands of messages of the given sizes, in order; each message a distinct object."""
    return [Command(msg, {}, f"{m}-{i}", "u", None, None) for m, size in enumerate(sizes)
            for msg in [object()] for i in range(size)]


def _messages(commands: list[Command]) -> list[int]:
    sizes, last = [], None
    for cmd in commands:
        if cmd.msg is not last:
            sizes.append(0)
            last = cmd.msg
        sizes[-1] += 1
    return sizes


def test_a_group_is_cut_at_the_first_message_boundary_from_the_limit_on():
    first, rest = _first_group(_commands([20, 20, 20]))
    assert (_messages(first), _messages(rest)) == ([20, 20], [20])


def test_a_group_ends_on_the_limit_when_a_message_does():
    first, rest = _first_group(_commands([GROUP_COMMANDS, GROUP_COMMANDS]))
    assert (len(first), _messages(rest)) == (GROUP_COMMANDS, [GROUP_COMMANDS])


def test_what_fits_is_one_group():
    first, rest = _first_group(_commands([5, 1, 3]))
    assert (len(first), rest) == (9, [])


def test_a_message_larger_than_the_limit_stays_whole():
    first, rest = _first_group(_commands([GROUP_COMMANDS * 2, 1]))
    assert (len(first), len(rest)) == (GROUP_COMMANDS * 2, 1)
