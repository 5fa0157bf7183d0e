"""Unit layer (cbmemory.ingest.turn_ids): turn ids made from a turn's role and text, for messages with no id
of their own: the same history put twice stores nothing new, a repeated message is kept, an append numbers
on from what is stored, and a user message re-sent after a run that got no reply is the same turn."""

from __future__ import annotations

from datetime import datetime, timezone

from cbmemory.ingest.turn_ids import content_key, plan_turns
from cbmemory.models import MemoryRecord, Message

DAY = datetime(2024, 4, 1, tzinfo=timezone.utc)
P = "li:"


def stored(turns: list[Message]) -> list[MemoryRecord]:
    return [MemoryRecord(f"r{i}", "u", "s", "turn", i, t.role, t.content, t.content, DAY, DAY, "h", turn_id=t.turn_id)
            for i, t in enumerate(turns)]


def test_the_id_is_the_role_and_text_s_hash_and_the_ordinal_of_its_copies():
    out = plan_turns([("user", "ok"), ("assistant", "ok"), ("user", "ok")], [], prefix=P, append=False)
    assert [t.turn_id for t in out] == [f"li:{content_key('user', 'ok')}:0", f"li:{content_key('assistant', 'ok')}:0",
                                        f"li:{content_key('user', 'ok')}:1"]  # a repeated message is kept
    assert len(content_key("user", "ok")) == 16 and content_key("user", "ok") != content_key("user", "ok ")


def test_a_history_set_again_stores_nothing_new_and_a_longer_one_only_its_new_turns():
    history = [("user", "I moved to Lyon."), ("assistant", "Nice!")]
    first = plan_turns(history, [], prefix=P, append=False)
    assert plan_turns(history, stored(first), prefix=P, append=False) == []
    more = plan_turns([*history, ("user", "It rains.")], stored(first), prefix=P, append=False)
    assert [(t.role, t.content) for t in more] == [("user", "It rains.")]


def test_an_append_numbers_on_from_the_stored_copies():
    first = plan_turns([("user", "ok")], [], prefix=P, append=True)
    again = plan_turns([("user", "ok")], stored(first), prefix=P, append=True)
    assert [t.turn_id.rsplit(":", 1)[1] for t in first + again] == ["0", "1"]  # said twice: two turns


def test_a_user_message_re_sent_after_no_reply_is_the_same_turn_and_after_a_reply_a_new_one():
    first = plan_turns([("user", "Book a table.")], [], prefix=P, append=True)
    held = stored(first)
    assert plan_turns([("user", "Book a table.")], held, prefix=P, append=True, last=held[-1]) == []
    replied = stored([*first, *plan_turns([("assistant", "Done.")], held, prefix=P, append=True)])
    [new] = plan_turns([("user", "Book a table.")], replied, prefix=P, append=True, last=replied[-1])
    assert new.turn_id.endswith(":1")


def test_ids_of_another_prefix_are_not_counted():
    other = stored([Message("user", "ok", turn_id=f"lc:{content_key('user', 'ok')}:0")])
    [t] = plan_turns([("user", "ok")], other, prefix=P, append=True)
    assert t.turn_id == f"li:{content_key('user', 'ok')}:0"
