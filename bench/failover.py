"""P12: a Patroni cluster fails over under load (tests/faults/failover.py: 3 replicas on the
multi-host URL, 8 writers, 4 resuming watchers), for a kill -9 of the primary and for a
planned switchover, in synchronous mode. Measured: the promotion time (the fault to the new
primary accepting writes), and the recovery time (the promotion to the first write answered
by every replica), and the acknowledged writes lost."""

from __future__ import annotations

from typing import Any

FAULTS = ("kill", "switchover")


def measure() -> dict[str, Any]:
    from tests.faults import patroni
    from tests.faults.failover import run_scenario

    absent = patroni.missing()
    if absent:
        return {"skipped": "no Patroni cluster can run here, missing: " + "; ".join(absent)}
    run = run_scenario(FAULTS)
    report = run.report
    return {
        "faults": {name: report["faults"][name] for name in FAULTS if name in report["faults"]},
        "acknowledged": report["sync_acknowledged"],
        "lost": report["sync_lost"],
        "duplicated": report["duplicated"],
        "watchers_exact": all(w["first_difference"] == "" for w in report["watchers"].values()),
        "harness_errors": report["harness_errors"],
    }


def render(r: dict[str, Any]) -> list[str]:
    if "skipped" in r:
        return [f"Failover on a Patroni cluster: skipped ({r['skipped']})"]
    lines = [f"Failover on a Patroni cluster (synchronous mode), {r['acknowledged']:,} acknowledged writes, "
             f"{r['lost']} lost, {r['duplicated']} duplicated; every watcher exact: {r['watchers_exact']}"]
    for name, f in r["faults"].items():
        lines.append(f"     {name}: promotion {f['promotion_s']} s; writes back {f['writes_back_first_s']} s after it "
                     f"(every replica {f['writes_back_every_replica_s']} s); slowest refused call "
                     f"{f['slowest_refused_call_s']} s")
    return lines


def target(r: dict[str, Any]) -> dict[str, Any]:
    target = ("writes resume <= 1 s after Patroni's promotion completes, for a kill and for a switchover; "
              "0 acknowledged writes lost in synchronous mode")
    if "skipped" in r:
        return {"id": "P12", "target": target, "measured": r["skipped"], "pass": False}
    backs = {name: f["writes_back_every_replica_s"] for name, f in r["faults"].items()}
    measured = "; ".join(
        f"{name}: promotion {f['promotion_s']} s, writes back on every replica {f['writes_back_every_replica_s']} s "
        f"after it" for name, f in r["faults"].items()
    ) + f"; {r['lost']} of {r['acknowledged']:,} acknowledged writes lost"
    ok = (set(backs) == set(FAULTS) and all(b is not None and b <= 1.0 for b in backs.values())
          and r["lost"] == 0 and not r["harness_errors"])
    return {"id": "P12", "target": target, "measured": measured, "pass": ok}
