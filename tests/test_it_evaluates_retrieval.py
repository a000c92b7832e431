"""The evaluation commands run end to end on small made-up data and print their figures (no figure is asserted
beyond what the data makes certain)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from bench.commands import command

pytestmark = pytest.mark.django_db(transaction=True)

TOPICS = [
    ("I adopted a grey cat named Pixel last week", "What is the name of the cat?"),
    ("We drove to the coast and went surfing at dawn", "Where did they go surfing?"),
    ("My sister plays the cello in a small orchestra", "Which instrument does the sister play?"),
]


def conversation(speakers: tuple[str, str], offset: int) -> dict:
    turns = [{"speaker": speakers[i % 2], "dia_id": f"D1:{i + 1}", "text": text}
             for i, (text, _) in enumerate(TOPICS[offset:] + TOPICS[:offset])]  # fmt: skip
    turns.append({"speaker": speakers[0], "dia_id": f"D1:{len(turns) + 1}", "text": "Sounds lovely, tell me more"})
    qa = [{"question": q, "evidence": [f"D1:{i + 1}"], "category": 1}
          for i, (_, q) in enumerate(TOPICS[offset:] + TOPICS[:offset])]  # fmt: skip
    return {"conversation": {"session_1": turns, "session_1_date_time": "1 May 2023"}, "qa": qa}


def test_eval_locomo_cv_prints_held_out_beside_in_sample(tmp_path):
    folder = tmp_path / "convs"
    folder.mkdir()
    for n, speakers in enumerate([("Ana", "Ben"), ("Cleo", "Dev")]):
        (folder / f"{n}.json").write_text(json.dumps(conversation(speakers, n)))
    out = StringIO()
    call_command(command("locomo"), str(folder), "--cv", stdout=out)
    text = out.getvalue()
    assert "held-out (cross-validated)" in text
    hybrid = next(line for line in text.splitlines() if line.startswith("hybrid, tuned"))
    figures = [float(x) for x in hybrid.split()[-8:]]
    assert len(figures) == 8 and all(0.0 <= f <= 1.0 for f in figures)
    assert figures[2] == 1.0  # hit@10 in-sample: three turns of four, every answer is in the first ten


@pytest.mark.parametrize("switch", ["on", "off"])
def test_eval_locomo_runs_with_conversation_ranking_on_and_off(tmp_path, switch):
    folder = tmp_path / "convs"
    folder.mkdir()
    (folder / "0.json").write_text(json.dumps(conversation(("Ana", "Ben"), 0)))
    out = StringIO()
    call_command(command("locomo"), str(folder), "--modes", "keyword", "--stored", "session",
                 "--conversation-ranking", switch, stdout=out)  # fmt: skip
    text = out.getvalue()
    assert f"conversation ranking: {switch}" in text
    keyword = next(line for line in text.splitlines() if line.startswith("keyword "))
    assert float(keyword.split()[-2]) == 1.0  # hit@10: three turns of four, every answer is in the first ten


def test_eval_locomo_prints_each_mode_for_plain_and_session_turns_side_by_side(tmp_path):
    folder = tmp_path / "convs"
    folder.mkdir()
    (folder / "0.json").write_text(json.dumps(conversation(("Ana", "Ben"), 0)))
    out = StringIO()
    call_command(command("locomo"), str(folder), "--stored", "both", stdout=out)
    text = out.getvalue()
    table = text.split("side by side (hit@1 / hit@10 / MRR):")[1].splitlines()[1:]
    assert table[0].split() == ["mode", "session", "plain"]
    assert [line.split()[0] for line in table[1:4]] == ["hybrid", "keyword", "semantic"]
    cells = [float(x) for x in table[1].split()[1:] if x != "/"]
    assert len(cells) == 6 and cells[1] == cells[4] == 1.0  # hit@10: every answer is among four turns


def test_eval_recall_prints_block_hit_rates_and_the_floor_table():
    out = StringIO()
    call_command(command("recall"), "--others", "40", "--made-up", "10", stdout=out)
    text = out.getvalue()
    assert "400 chars:" in text and "800 chars:" in text
    assert "<- setting" in text
    floors = [line.split() for line in text.splitlines() if line[:4] in ("0.00", "0.25")]
    assert floors[0][1] == "0.000"  # with no floor, no made-up query comes back empty
