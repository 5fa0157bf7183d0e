"""Unit layer (datasets): the LoCoMo parser's repairs of evidence ids and its quirks, on in-memory data."""



from cbmemory_eval.datasets.locomo import normalise_evidence, parse_conversation


def test_evidence_repairs():
    assert normalise_evidence(["D8:6; D9:17", "D", "D:11:26", "D30:05", "D1:3 D1:4", "D1:3"]) == [
        "D8:6", "D9:17", "D11:26", "D30:5", "D1:3", "D1:4"]


def test_quirks_on_a_synthetic_conversation():
    obj = {"sample_id": "c", "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bo",
        "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "hi", "blip_caption": "a cat"},
                      {"speaker": "Bo", "dia_id": "D1:2", "text": "hello"}],
        "session_1_date_time": "1:56 pm on 8 May, 2023", "session_2_date_time": "2:00 pm on 9 May, 2023"},
        "qa": [{"question": "q1", "answer": 2022, "evidence": ["D1:1", "D4:36"], "category": 2},
               {"question": "q2", "adversarial_answer": "yes", "evidence": [], "category": 5}]}
    c = parse_conversation(obj)
    assert [s.session_id for s in c.sessions] == ["session_1"]  # a date key without a session is ignored
    assert c.sessions[0].messages[0].annotations["image_caption"] == "a cat"
    q1, q2 = c.questions
    assert q1.answer == "2022" and q1.evidence == ("D1:1",) and q1.unknown_evidence == ("D4:36",)
    assert q2.answer is None and q2.adversarial_answer == "yes" and q2.category_name == "adversarial"
