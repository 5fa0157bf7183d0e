"""Integration layer (issue 29 item 1): in LlamaIndex an agent puts the user's message before it calls ``get``,
so a turn must be linked to the recall of its own step, never to the previous step's. ``CbMemoryChatMemory``
over a real SQLite memory and the offline MiniLM embedder."""

from __future__ import annotations

from llama_index.core.base.llms.types import ChatMessage

from llamaindex_cbmemory import CbMemoryChatMemory


def test_a_turn_is_linked_to_the_recall_of_its_own_step(seeded):
    chat = CbMemoryChatMemory(memory=seeded, user_id="alice", session_id="s9", session_date="2023-06-01", window=0)
    lyon = seeded.session_records("alice", "a1")[0].record_id
    chat.put(ChatMessage(role="user", content="Where did I move?"))
    chat.get("Where did I move?")
    chat.put(ChatMessage(role="assistant", content="You moved to Lyon."))
    chat.put(ChatMessage(role="user", content="Is my flat near the river?"))  # step 2: its recall comes next
    chat.get("Is my flat near the river?")
    chat.put(ChatMessage(role="assistant", content="Your flat is near the river."))
    links = {r.text: r.source_ids for r in seeded.session_records("alice", "s9")}
    assert lyon in links["You moved to Lyon."]
    assert links["Is my flat near the river?"] == ()  # not linked to step 1's recall
    assert lyon in links["Your flat is near the river."]  # linked to its own step's
