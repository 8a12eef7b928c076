"""The online scale bench (host_tools/benches/online_scale.py, `make bench-online`) in a
tiny sample, so it does not rot: a few simulated games played to the end on a fresh
Mosquitto (the per-game figures, and what is left on the broker after both sides left),
then one step of 5 games, one generator process, a 1 s window."""

import pytest

from host_tools.benches import online_scale as bench
from host_tools.online import broker as broker_mod


@pytest.fixture(autouse=True)
def _need_broker():
    if not broker_mod.available():
        pytest.skip("mosquitto not installed: make online-deps (apt-get install mosquitto)")


def test_games_played_to_the_end_and_what_they_leave_on_the_broker():
    one = bench.per_game(2, log=lambda *a: None, think_ms=15)
    assert one["games"] == 2 and one["errors"] == 0, one["why"]
    plies = one["plies"]
    assert plies > 10
    # each ply is at least a move and two states (the mover's, then the receiver's)
    assert one["published"] >= 3 * plies and one["delivered"] >= 2 * plies
    assert one["bytes_in"] > 100 * plies
    # while playing: each game's two states and two presences, and the ack, retained
    assert one["retained_in_play"].get("s") == 4 and one["retained_in_play"].get("ack") == 2
    # after both left: no state and no offer of a finished game is left on the broker
    left = one["retained_left"]
    assert "s" not in left and "pair" not in left, one["retained_left_topics"]


def test_one_small_step_measures_latency_rates_and_the_broker():
    s = bench.run_step(5, workers=1, think_ms=50, window_s=1.0, log=lambda *a: None)
    assert s["paired"] == 5 and s["errors"] == 0, s["why"]
    assert s["connections"] == 10
    assert s["moves"] >= 15 and s["p50_ms"] is not None and s["p50_ms"] <= s["p99_ms"] <= s["max_ms"]
    assert s["published_s"] > s["moves_s"] * 2  # a move and its state a ply, at least
    assert s["delivered_s"] > 0 and s["broker_rss_mb"] > 1 and s["broker_cpu"] >= 0
    assert s["gen_cpu"] > 0
    assert "ack" in s["retained"] and s["retained"]["s"] >= 8  # the games in play's states
    assert "| 5 | 10 |" in bench.table([s])
