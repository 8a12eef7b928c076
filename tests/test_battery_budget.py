"""hardware/battery.md's current and hours tables come from the profiles and the
firmware's own frames (host_tools/generators/battery_budget.py), and say what the states save."""

from host_tools.generators import battery_budget as bb
from mancala import profiles
from mancala.hw import battery as B


def test_the_doc_is_up_to_date():
    assert bb.main(["--check"]) == 0


def test_each_state_draws_less_than_the_one_before_and_the_switch_saves_the_chain():
    for name in profiles.NAMES:
        p = profiles.load(name)
        rows = dict(bb.states(p))
        play = [v for k, v in rows.items() if k.startswith("play")]
        assert play == sorted(play)  # brighter, more
        assert rows["dark"] < rows["dim (one LED breathing)"] < play[0]
        if p["mcu"] == "rp2040" and not p.get("wifi"):  # (a Pico W has no battery option)
            dark = dict(bb.states(bb.with_battery(p)))["dark"]
            assert dark == rows["dark"] - p["led_count"] * p["idle_ma_per_led"]
        assert max(play) <= p["current_limit_ma"] + 25 + 84 + 50  # the budget holds


def test_the_battery_reading_and_its_charge():
    class Adc:
        reading = 0

        def read_u16(self):
            return self.reading

    adc = Adc()
    for mv in (3300, 3450, 3600, 3900, 4200, 4700):
        adc.reading = B.mv_to_reading(mv)
        assert B.Battery(adc, {}).read_mv() == mv
    assert B.percent(4250) == 100 and B.percent(3300) == 0
    assert 0 < B.percent(3600) < B.percent(3800) < B.percent(4100) < 100


def test_the_profile_says_whether_a_battery_is_there():
    from mancala.profile import validate

    for name in profiles.NAMES:
        assert profiles.load(name)["battery"] is None  # the reference builds: none
    p = dict(profiles.load("pico_buttons"), battery={"cell_mah": 3000}, led_power_pin=16)
    assert validate(p) == []
    assert any("VSYS" in e for e in validate(dict(profiles.load("esp32"), battery={"cell_mah": 1})))
    assert validate(dict(p, battery={"cell_mah": 3000, "cut_mv": 3700}))  # cut above low
    assert validate(dict(p, led_power_pin=22))  # the LED data pin
    assert validate(dict(p, idle_sleep="deep"))
