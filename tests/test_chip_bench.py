"""The chip bench's own checks (host_tools/benches/chip_bench.py): no test runs the RP2040
model (a fresh clone has none); these need none."""

import pytest

from host_tools.benches import chip_bench as C
from host_tools.command.analysis import sample_positions


def test_a_missing_or_wrong_model_folder_is_one_clear_line(tmp_path, capsys):
    assert C.main([str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err == "chip bench: no RP2040 model at %s (not a folder)\n" % (
        tmp_path / "nowhere")
    (tmp_path / "pico.mjs").write_text("")
    assert C.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not the RP2040 model's folder" in err and "firmware.uf2" in err
    with pytest.raises(C.ChipBenchError, match="no model folder given"):
        C.check_model(None)


def test_no_node_is_one_clear_line(tmp_path, monkeypatch, capsys):
    for f in C.MODEL_FILES:
        (tmp_path / f).write_text("")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert C.main([str(tmp_path)]) == 2
    assert capsys.readouterr().err == ("chip bench: node not found: the RP2040 model runs on "
                                       "Node.js (install node and npm, then run again)\n")


def test_bad_options_are_one_line(capsys):
    assert C.main(["x", "--variants", "chess"]) == 2
    assert "unknown variant chess" in capsys.readouterr().err


def test_the_workload_is_mancala_benchs():
    ps = sample_positions("kalah")
    picked = C.bench_positions("kalah", 3)
    assert len(picked) == 3 and all(p in ps for p in picked) and picked[0] == ps[0]
    assert C.bench_positions("kalah", 10 ** 6) == ps
    inner = C.vm_inner("kalah", 3)
    assert inner[0] > inner[1] > inner[2] >= inner[3] == 1  # lower levels: repeated more
