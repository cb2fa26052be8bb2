"""cclab.reproduce against `cclab reproduce --json`."""

import json

import cclab


def test_reproduce_gives_the_cli_report(cli):
    rep = cclab.reproduce("mathis", quick=True)
    p = cli("reproduce", "mathis", "--quick", "--json", "-q")
    cli_report = json.loads(p.stdout.splitlines()[0])
    assert list(rep.table.columns) == [
        "variant", "metric", "seed", "sim", "ci95", "runs", "against", "status"
    ]
    assert rep.table["sim"].tolist() == [r["sim"] for r in cli_report["table"]]
    assert rep.checks["status"].tolist() == [c["outcome"] for c in cli_report["checks"]]
    assert rep.tally == cli_report["tally"]
    assert rep.passed
    assert "mathis" in rep.text


def test_seed_rows_have_a_status():
    rep = cclab.reproduce("reno-recovery", quick=True)
    seeded = rep.table[rep.table["seed"].notna()]
    assert len(seeded) > 0
    assert set(seeded["against"]) == {"seed"}
    assert seeded["status"].notna().all()
