"""A request without options skips its verb's options model only where that model asks for none."""
import pytest

from api.status import StatusError
from bus import messages


@pytest.mark.parametrize("verb", sorted(messages.OPTIONS))
def test_a_verb_skips_its_options_model_only_if_no_options_are_valid(verb):
    try:
        messages.OPTIONS[verb].model_validate({})
        valid = True
    except ValueError:
        valid = False
    assert (verb in messages._NO_OPTIONS_NEEDED) == valid


@pytest.mark.parametrize("verb", ["snapshot", "watch"])
def test_a_verb_that_needs_options_is_refused_without_them(verb):
    with pytest.raises(StatusError, match="options"):
        messages.parse_request({"verb": verb, "kind": "Pod", "options": {}})
