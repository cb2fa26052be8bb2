"""Finding 9 of issue 52 (the Python side): `set=` / `overrides=` take nested dicts and
lists as TOML has them; every bad argument is a ScenarioError naming the argument (or
key), the value and what is allowed; `e.allowed` is what is allowed; `ymax = 0` is
refused rather than ignored."""

import math

import pytest

import cclab
from conftest import ROOT

DUMBBELL = str(ROOT / "examples" / "dumbbell.toml")
SHORT = {"sim.duration": "1200ms"}


def test_f09_a_dict_value_sets_each_of_its_keys():
    nested = cclab.run(
        DUMBBELL, overrides={**SHORT, "topology.bottleneck": {"rate": "2Gbps", "delay": "1ms"}}
    )
    dotted = cclab.run(
        DUMBBELL,
        overrides={**SHORT, "topology.bottleneck.rate": "2Gbps", "topology.bottleneck.delay": "1ms"},
    )
    assert nested.meta["run_id"] == dotted.meta["run_id"]
    assert nested.flows["bytes"].tolist() == dotted.flows["bytes"].tolist()
    # The file's other bottleneck keys stay (its queue of 1000 packets).
    assert 'rate = "2Gbps"' in nested.meta["scenario"] and "1000pkts" in nested.meta["scenario"]
    # Faster than the file's 1 Gbit/s bottleneck.
    goodput = next(c for c in nested.flows.columns if c.startswith("goodput"))
    scale = 1e-6 if goodput.endswith("_bps") else 1.0
    assert nested.flows[goodput].sum() * scale > 1000


def test_f09_a_list_of_tables_is_a_toml_array_of_tables():
    pings = [
        {"from": "s0", "to": "r0", "interval": "10ms"},
        {"from": "s1", "to": "r1", "interval": "100ms"},
    ]
    r = cclab.run(DUMBBELL, set={**SHORT, "ping": pings})
    assert len(r.pings) == 2
    sent = r.pings["sent"].tolist()
    assert sent[0] > 5 * sent[1] > 0
    # A list of values.
    r2 = cclab.run(DUMBBELL, overrides={**SHORT, "output.queues": ["bottleneck_rev"]})
    assert set(r2.series("queue")["queue"]) == {"bottleneck_rev"}


def test_f09_set_is_an_alias_of_overrides():
    a = cclab.run(DUMBBELL, set={**SHORT, "tcp.cc": "reno"})
    b = cclab.run(DUMBBELL, overrides={**SHORT, "tcp.cc": "reno"})
    assert a.meta["run_id"] == b.meta["run_id"]
    with pytest.raises(cclab.ScenarioError, match="not both"):
        cclab.run(DUMBBELL, set=SHORT, overrides=SHORT)


BAD = [
    # (call, kwargs, key named, text in the value)
    ("run", {"seed": -1}, "seed", "-1"),
    ("run", {"seed": 2**64}, "seed", str(2**64)),
    ("run", {"seed": 1.5}, "seed", "1.5"),
    ("run", {"seed": True}, "seed", "True"),
    ("run", {"out": "a\0b"}, "out", "a\\x00b"),
    ("run", {"out": 3}, "out", "3"),
    ("run", {"force": "yes"}, "force", "yes"),
    ("run", {"backend": "pandaz"}, "backend", "pandaz"),
    ("run", {"set": {"sim.duration": math.nan}}, "sim.duration", "nan"),
    ("run", {"set": {"sim.seed": math.inf}}, "sim.seed", "inf"),
    ("run", {"set": {"tcp.cc": None}}, "tcp.cc", "None"),
    ("run", {"set": {"tcp.cc": object()}}, "tcp.cc", "object"),
    ("run", {"set": {"sim.seed": 2**70}}, "sim.seed", str(2**70)),
    ("run", {"set": {"topology.bottleneck": {"rate": math.nan}}}, "topology.bottleneck.rate", "nan"),
    ("run", {"set": "tcp.cc=reno"}, "set", "tcp.cc=reno"),
    ("sweep", {"jobs": -1}, "jobs", "-1"),
    ("sweep", {"jobs": 2**70}, "jobs", str(2**70)),
    ("sweep", {"out": "x\0"}, "out", "x\\x00"),
    ("reproduce", {"threads": -1}, "threads", "-1"),
    ("reproduce", {"seed": -1}, "seed", "-1"),
    ("reproduce", {"quick": "yes"}, "quick", "yes"),
]


@pytest.mark.parametrize("call,kwargs,key,value", BAD, ids=[f"{c}-{k}" for c, _, k, _ in BAD])
def test_f09_every_bad_argument_is_a_scenario_error_naming_it(call, kwargs, key, value):
    args = {"run": (DUMBBELL,), "sweep": (str(ROOT / "examples" / "sweep.toml"),),
            "reproduce": ("mathis",)}[call]
    with pytest.raises(cclab.ScenarioError) as e:
        getattr(cclab, call)(*args, **kwargs)
    err = e.value
    assert isinstance(err, ValueError)
    assert err.key == key, str(err)
    assert value in err.value and value in str(err), str(err)
    # What is allowed, on its own, and in the message.
    assert err.allowed and err.allowed != str(err) and err.allowed in str(err)
    assert err.errors[0]["key"] == key


def test_f09_nan_in_a_scenario_dict_names_its_key():
    d = {"sim": {"duration": "1s"}, "topology": {"kind": "dumbbell", "senders": 1,
                                                 "bottleneck": {"rate": "1Gbps", "delay": math.nan}}}
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.run(d)
    assert e.value.key == "topology.bottleneck.delay"
    assert "nan" in str(e.value)


def test_f09_allowed_is_what_is_allowed_not_the_message():
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.run(DUMBBELL, set={"tcp.cc": "cubik"})
    err = e.value
    assert err.file == "set=" and str(err).startswith("set=: key 'tcp.cc'")
    assert '"reno"' in err.allowed and "cubik" not in err.allowed
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.run(DUMBBELL, set={"sim.durration": "1s"})
    assert "duration" in e.value.allowed and "unknown" not in e.value.allowed


def test_f09_ymax_zero_is_refused_not_ignored():
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.run(DUMBBELL, set={**SHORT, "output.plot.cwnd.ymax": 0})
    assert e.value.key == "output.plot.cwnd.ymax"
    assert "above ymin (0, its default)" in str(e.value)
    with pytest.raises(cclab.ScenarioError, match="above xmin"):
        cclab.run(DUMBBELL, set={**SHORT, "output.plot.queue.xmax": "0s"})
    # A range above zero is kept.
    cclab.run(DUMBBELL, set={**SHORT, "output.plot.cwnd.ymax": 100})
