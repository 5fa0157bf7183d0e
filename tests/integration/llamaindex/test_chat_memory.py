"""Integration layer (LlamaIndex's interface contract): CbMemoryChatMemory against LlamaIndex's BaseMemory
interface (put/get/set/reset, sync and async), over a real SQLite memory with the offline embedder. Agent runs
are in test_agent.py."""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock

from cbmemory import AgentMemory, InvalidInputError
from llamaindex_cbmemory import CbMemoryChatMemory

from .conftest import ticks_during


def user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=text)


def assistant(text: str) -> ChatMessage:
    return ChatMessage(role="assistant", content=text)


def stored(memory: AgentMemory, user_id: str, session_id: str) -> list[tuple[str, str]]:
    return [(r.role, r.text) for r in memory.session_records(user_id, session_id)]


def chat(memory: AgentMemory, **kwargs) -> CbMemoryChatMemory:
    kwargs.setdefault("user_id", "alice")
    kwargs.setdefault("session_id", "a3")
    kwargs.setdefault("session_date", "2023-05-20")
    return CbMemoryChatMemory(memory=memory, **kwargs)


def test_put_stores_each_message_once_and_get_returns_memories_then_window(seeded):
    cm = chat(seeded)
    cm.put(user("When did I move to Lyon?"))
    assert stored(seeded, "alice", "a3") == [("user", "When did I move to Lyon?")]
    messages = cm.get()  # no input, as an agent's first step: the latest user message is the query
    assert [m.role for m in messages] == [MessageRole.SYSTEM, MessageRole.USER]
    system = messages[0].content
    assert "user: I moved to Lyon yesterday [Saturday, 6 May 2023], the flat is near the river. [said Sunday, 7 May 2023]" in system
    assert system.rstrip().endswith("Today is Saturday, 20 May 2023.")
    assert "When did I move to Lyon?" not in system  # already in the window
    assert messages[1].content == "When did I move to Lyon?"
    assert stored(seeded, "alice", "a3") == [("user", "When did I move to Lyon?")]  # get stores nothing


def test_agent_steps_are_not_stored(seeded):
    cm = chat(seeded)
    cm.put_messages([
        user("What do I play?"),
        ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_call_id="c1", tool_name="search", tool_kwargs={})]),
        ChatMessage(role="tool", content="cello, since Tuesday", additional_kwargs={"tool_call_id": "c1"}),
        ChatMessage(role="system", content="be brief"),
        assistant("   "),
        assistant("You play the cello."),
    ])
    assert stored(seeded, "alice", "a3") == [("user", "What do I play?"), ("assistant", "You play the cello.")]


def test_set_is_idempotent_and_repeats_are_kept(seeded):
    cm = chat(seeded)
    history = [user("hi"), assistant("ok"), user("thanks"), assistant("ok")]
    cm.set(history)
    cm.set(history)  # the same history again: nothing new
    cm.set([*history, user("bye")])  # a longer history: only the new turn
    assert stored(seeded, "alice", "a3") == [
        ("user", "hi"), ("assistant", "ok"), ("user", "thanks"), ("assistant", "ok"), ("user", "bye")]
    cm.put(assistant("ok"))  # a genuinely new third "ok"
    assert [t for _, t in stored(seeded, "alice", "a3")].count("ok") == 3


def test_input_overrides_the_latest_user_message(seeded):
    cm = chat(seeded, k=1, recipe="vector")
    cm.put(user("Tell me something."))
    by_input = cm.get(input="Who is visiting next weekend?")[0].content
    assert "Emma" in by_input and "Lyon" not in by_input
    by_message = cm.get(input=ChatMessage(role="user", content="What instrument am I learning?"))[0].content
    assert "cello" in by_message


def test_a_very_long_message_still_gets_memories(seeded):
    cm = chat(seeded)
    cm.put(user("background " * 2_000 + "Where did I move to?"))
    messages = cm.get()
    assert "Lyon" in messages[0].content and len(messages) == 2


def test_memories_already_in_the_window_are_left_out(seeded):
    cm = chat(seeded, session_id="a2", session_date="2023-05-14", k=10)
    messages = cm.get()
    window = [m.content for m in messages if m.role != MessageRole.SYSTEM]
    assert window == [t for _, t in stored(seeded, "alice", "a2")]
    system = messages[0].content
    assert not any(text in system for text in window)
    assert "Lyon" in system  # other sessions still come back


def test_window_size_reset_and_get_all(seeded):
    cm = chat(seeded, window=2)
    for i in range(4):
        cm.put(user(f"note number {i} about my garden"))
    assert [m.content for m in cm.get() if m.role == MessageRole.USER] == [
        "note number 2 about my garden", "note number 3 about my garden"]
    assert len(cm.get_all()) == 4
    cm.reset()
    assert cm.get_all() == []
    after = cm.get(input="garden notes")
    assert [m.role for m in after] == [MessageRole.SYSTEM]  # the window is empty ...
    assert "note number 3 about my garden" in after[0].content  # ... the turns are still remembered
    assert len(stored(seeded, "alice", "a3")) == 4


def test_a_new_object_continues_the_session(seeded):
    chat(seeded).put_messages([user("I bought a red bike."), assistant("Nice bike!")])
    again = chat(AgentMemory(seeded.store, seeded.embedder.inner, clock=seeded.clock))
    assert [m.content for m in again.get_all()] == ["I bought a red bike.", "Nice bike!"]


def test_user_isolation(seeded):
    cm = chat(seeded, user_id="alice", k=10)
    text = cm.get(input="Berlin dog named Rex moved last month")[0].content
    assert "Rex" not in text and "Berlin" not in text and "Lyon" in text
    bob = chat(seeded, user_id="bob", session_id="b2", k=10).get(input="Lyon river cello Emma")[0].content
    assert "Rex" in bob and "Lyon" not in bob and "Emma" not in bob


def test_today_defaults_to_the_memory_clock(seeded):
    cm = chat(seeded, session_date=None)
    assert cm.get(input="Lyon")[0].content.endswith("Today is Thursday, 1 June 2023.")
    assert "Today is" not in chat(seeded, say_today=False).get(input="Lyon")[0].content


def test_nothing_to_search_for_returns_just_the_window(seeded):
    assert chat(seeded).get() == []


def test_async_methods_match_sync(seeded):
    async def run():
        cm = chat(seeded)
        await cm.aput(user("When did I move to Lyon?"))
        await cm.aput_messages([assistant("On 6 May 2023."), user("thanks")])
        await cm.aset([user("When did I move to Lyon?"), assistant("On 6 May 2023.")])
        got = await cm.aget()
        everything = await cm.aget_all()
        await cm.areset()
        return got, everything, await cm.aget_all()

    got, everything, after_reset = asyncio.run(run())
    assert [m.content for m in everything] == ["When did I move to Lyon?", "On 6 May 2023.", "thanks"]
    assert got[0].role == MessageRole.SYSTEM and "I moved to Lyon yesterday" in got[0].content
    assert [m.content for m in got[1:]] == [m.content for m in everything]
    assert after_reset == []
    assert chat(seeded).get(input="When did I move to Lyon?")[0].content == got[0].content


def test_aget_does_not_block_the_event_loop(slow_memory):
    cm = chat(slow_memory)

    async def main():
        await cm.aput(user("Who is visiting me?"))
        return await ticks_during(cm.aget)

    messages, ticks = asyncio.run(main())
    assert "Emma" in messages[0].content
    assert ticks >= 10, f"the loop made only {ticks} steps during a 0.25 s retrieval"


def test_from_defaults_stores_the_chat_history(seeded):
    cm = CbMemoryChatMemory.from_defaults(seeded, "alice", session_id="a3",
                                          chat_history=[user("I like tea."), assistant("Noted.")])
    assert stored(seeded, "alice", "a3") == [("user", "I like tea."), ("assistant", "Noted.")]
    assert isinstance(cm, CbMemoryChatMemory)
    with pytest.raises(InvalidInputError):
        CbMemoryChatMemory.from_defaults()


@pytest.mark.parametrize("kwargs", [{"user_id": ""}, {"session_id": "bad\nid"}, {"k": 0}, {"window": -1},
                                    {"recipe": "nope"}, {"session_date": "someday"}])
def test_bad_arguments_raise_typed_errors(seeded, kwargs):
    with pytest.raises(InvalidInputError):
        chat(seeded, **kwargs)
    with pytest.raises(InvalidInputError, match="AgentMemory"):
        CbMemoryChatMemory(memory=object(), user_id="alice")  # type: ignore[arg-type]
