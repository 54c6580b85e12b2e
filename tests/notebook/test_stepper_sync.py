"""What a Step sends to the browser: the panes of hidden tabs wait until their tab opens (issue
#23's step latency: the hidden Event log was 9 KB of a 24 KB answer); Python reads them current."""

from __future__ import annotations

import json

from tests.notebook.test_widgets import word_count_env


class RecordingComm:
    """A comm that keeps the state updates the widget sends (as the front end would get them)."""

    kernel = True
    comm_id = "recording"

    def __init__(self) -> None:
        self.updates: list[dict] = []

    def send(self, data=None, buffers=None, **_kw) -> None:
        if data and data.get("method") == "update":
            self.updates.append(data["state"])

    def close(self, *_a, **_kw) -> None:
        pass

    def on_msg(self, *_a) -> None:
        pass

    def on_close(self, *_a) -> None:
        pass


def _sent(comm: RecordingComm) -> dict:
    out: dict = {}
    for state in comm.updates:
        out.update(state)
    comm.updates.clear()
    return out


def test_a_step_sends_only_the_open_tabs_pane_and_a_tab_gets_its_pane_when_opened():
    from pyflowkit.notebook.stepper import TAB_TRAITS, Stepper

    stepper = Stepper(word_count_env(), submit=True)
    comm = stepper.comm = RecordingComm()
    stepper.seq_width = 1100
    _sent(comm)
    for _ in range(12):
        stepper.step()
    sent = _sent(comm)
    assert {"step_count", "seq_body", "narration", "states"} <= set(sent)
    assert not set(TAB_TRAITS) & set(sent), sorted(sent)  # the Sequence tab is open
    # Python reads every pane current all the same
    assert stepper.events[-1]["step"] == stepper.step_count and len(stepper.tasks) == 5
    stepper.tab = "log"  # the browser opens the Event log: its latest events arrive at once
    sent = _sent(comm)
    assert sent["tab"] == "log" and sent["events"] == json.loads(json.dumps(stepper.events))
    assert not {"tasks", "slots", "timeline"} & set(sent)
    stepper.step()
    assert "events" in _sent(comm)  # while it is open, every step sends it
    stepper.tab = "tasks"
    assert _sent(comm)["tasks"] == stepper.tasks
    stepper.tab = "log"
    assert "events" not in _sent(comm)  # nothing changed while hidden: nothing to send
    stepper.tab = "sequence"
    stepper.step()
    stepper.step()
    assert "events" not in _sent(comm)
    stepper.send_state()  # the full state (a page reload) holds every pane
    full = _sent(comm)
    assert set(TAB_TRAITS) <= set(full) and stepper._unsent == set()
