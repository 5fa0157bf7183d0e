"""Unit layer (langchain_cbmemory.middleware): the memory text is appended to the system message's content
blocks, or becomes the system message; no agent, no store."""

from __future__ import annotations

from langchain_core.messages import SystemMessage

from langchain_cbmemory.middleware import with_system_text
from notebooks.scripted_chat_model import ScriptedChatModel


def test_system_text_is_appended_to_content_blocks_or_creates_the_message():
    from langchain.agents.middleware import ModelRequest

    model = ScriptedChatModel()
    blocks = ModelRequest(model=model, messages=[], system_message=SystemMessage([{"type": "text", "text": "A"}]))
    assert with_system_text(blocks, "B").system_message.content == [{"type": "text", "text": "A"},
                                                                    {"type": "text", "text": "B"}]
    empty = ModelRequest(model=model, messages=[])
    assert with_system_text(empty, "B").system_message.content == "B"
    assert with_system_text(empty, "") is empty
