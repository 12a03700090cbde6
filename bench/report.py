"""Turns the results of one run into the terminal report and checks the targets.

Every figure is a median over the run's repetitions, with [min-max] beside it when there was
more than one, so the noise of a shared machine shows.
"""

from __future__ import annotations

from typing import Any

from bench import bulk, concurrency, counts, failover, sinks, timers, workers


def _n(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def _range(summary: dict[str, Any], key: str, digits: int = 0) -> str:
    rng = summary.get(f"{key}_range")
    if not rng or summary.get("runs", 1) < 2:
        return ""
    return f" [{_n(rng[0], digits)}-{_n(rng[1], digits)}]"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The targets of issue #12 (P1-P5), the history's (P6, P7), the stream's P4b, the worker
    runtimes' P8 and the payloads' P9, each under an id that never changes: reported, never
    asserted."""
    out = []
    tp = results.get("throughput")
    if tp and "64" in tp["points"]:
        p = tp["points"]["64"]
        out.append({"id": "P1", "target": "single-call transitions at c=64 >= 60% of the lower ceiling",
                    "measured": f"{_pct(p['ratio_lower'])} of {p['lower_ceiling']} "
                                f"({_n(p['tasklife']['rate'])}/s vs {_n(min(p['pgbench']['rate'], p['empty']['rate']))}/s)",
                    "pass": p["ratio_lower"] is not None and p["ratio_lower"] >= 0.60})
    bt = results.get("batch")
    if bt:
        ratio = bt["ratio_pgbench"]
        out.append({"id": "P2", "target": f"BatchTransitionTasks ({bt['batch_size']} per call) >= 2x the pgbench "
                                          f"single-statement ceiling",
                    "measured": f"{ratio:.2f}x ({_n(bt['batch']['items_per_s'])} items/s vs "
                                f"{_n(bt['pgbench']['rate'])}/s at c={bt['pgbench_concurrency']})"
                    if ratio is not None else "-",
                    "pass": ratio is not None and ratio >= 2.0})
    lc, pr = results.get("lifecycle"), results.get("peer")
    if lc and pr and pr.get("lifecycles_per_s"):
        theirs = pr["lifecycles_per_s"]
        ww = lc.get("worker_way") or {}
        if ww.get("lifecycles_per_s") is not None:
            ratio = ww["lifecycles_per_s"] / theirs
            out.append({"id": "P3", "target": "worker-way lifecycles/s (BatchCreateTasks, ClaimTasks, "
                                              "BatchTransitionTasks) >= 3x Procrastinate's steady lifecycles/s",
                        "measured": f"{ratio:.2f}x ({_n(ww['lifecycles_per_s'])}/s vs {_n(theirs)}/s)",
                        "pass": ratio >= 3.0})
        wp = lc.get("worker_way_payloads") or {}
        if wp.get("ratio") is not None:
            size = wp["payload_bytes"]
            out.append({"id": "P9", "target": f"worker-way lifecycles with a {size // 1024} KiB input and a "
                                              f"{size // 1024} KiB result per task >= 70% of the no-payload rate",
                        "measured": f"{_pct(wp['ratio'])} ({_n(wp['lifecycles_per_s'])}/s vs "
                                    f"{_n(ww.get('lifecycles_per_s'))}/s; per-run "
                                    f"{', '.join(_pct(r) for r in wp['ratio_runs'])})",
                        "pass": wp["ratio"] >= 0.70})
        ratio = lc["rate"] / theirs
        out.append({"id": "P3b", "target": "per-call lifecycles/s >= 1x Procrastinate's steady lifecycles/s",
                    "measured": f"{ratio:.2f}x ({_n(lc['rate'])}/s vs {_n(theirs)}/s)", "pass": ratio >= 1.0})
    st = results.get("stream")
    if st:
        big = max(st["points"], key=lambda p: p["subscribers"])
        one = min(st["points"], key=lambda p: p["subscribers"])
        paced = (f"paced at half the single-call capacity ({_n(st['capacity'])}/s)" if st.get("capacity")
                 else f"paced at {_n(st['rate'])}/s (no capacity measured in this run)")
        for pid, point, key, limit in (("P4", big, "p99_ms", 25.0), ("P4b", one, "p50_ms", 5.0)):
            value = point[key]
            out.append({"id": pid, "target": f"stream {key[:3]} < {limit:g} ms with {point['subscribers']:,} "
                                             f"subscriber{'s' if point['subscribers'] > 1 else ''}, {paced}",
                        "measured": f"{_n(value, 1)} ms{_range(point, key, 1)} at {_n(point['transitions_per_s'])} "
                                    f"transitions/s, {_n(point['delivered_per_s'])} events/s delivered"
                                    + (f" (median of {point['runs']})" if point.get("runs", 1) > 1 else ""),
                        "pass": value is not None and value < limit and point["delivered_per_s"] > 0})
    sc = results.get("scale")
    if sc:
        small, large = sc["sizes"]
        runs = sc.get("transition_ratio_runs", [])
        out.append({"id": "P5", "target": f"throughput with {large:,} events >= 90% of that with {small:,} "
                                          f"(median of {len(runs)} interleaved repetitions)",
                    "measured": f"{_pct(sc['transition_ratio'])} "
                                f"({_n(sc['points'][str(large)]['transitions']['rate'])}/s vs "
                                f"{_n(sc['points'][str(small)]['transitions']['rate'])}/s)",
                    "pass": sc["transition_ratio"] is not None and sc["transition_ratio"] >= 0.90})
        rp = sc.get("retention")
        if rp:
            out.append({"id": "P6", "target": "a retention pass that drops a day of history < 1 s under the table's "
                                              "lock (its abandoned tasks deleted before, in batches)",
                        "measured": f"{rp['dropping_seconds']:.2f} s for {rp['partition']} "
                                    f"({rp['events_in_partition']:,} events, {rp['events_kept']:,} kept); "
                                    f"{rp['tasks_deleted']:,} tasks deleted before in {rp['deleting_seconds']:.2f} s, "
                                    f"{rp['seconds']:.2f} s in all",
                        "pass": rp["dropping_seconds"] < 1.0 and rp["dropped"] == [rp["partition"]]})
        worst = []
        for method in ("GetTask", "ListTaskEvents"):
            a, b = sc["points"][str(small)][method]["p99_ms"], sc["points"][str(large)][method]["p99_ms"]
            worst.append((method, a, b, b / a if a else None))
        out.append({"id": "P7", "target": f"GetTask and ListTaskEvents p99 with {large:,} events <= 1.5x that with "
                                          f"{small:,}",
                    "measured": ", ".join(f"{m} {_n(b, 2)} vs {_n(a, 2)} ms ({_n(r, 2)}x)" for m, a, b, r in worst),
                    "pass": all(r is not None and r <= 1.5 for _, _, _, r in worst)})
    wk = results.get("workers")
    if wk and wk["procrastinate"].get("lifecycles_per_s"):
        theirs = wk["procrastinate"]["lifecycles_per_s"]
        ratios = {language: (r.get("tasks_per_s") or 0) / theirs for language, r in wk["languages"].items()}
        out.append({"id": "P8", "target": "every client's worker runtime >= 2x Procrastinate's worker (no-op tasks, "
                                          f"concurrency {wk['concurrency']})",
                    "measured": ", ".join(f"{language} {ratio:.2f}x" for language, ratio in ratios.items())
                                + f" (Procrastinate {_n(theirs)} jobs/s)",
                    "pass": bool(ratios) and all(ratio >= 2.0 for ratio in ratios.values())})
    if results.get("counts"):
        out.append(counts.target(results["counts"]))
    if results.get("bulk"):
        out.append(bulk.target(results["bulk"]))
    if results.get("keys"):
        out.append(concurrency.target(results["keys"]))
    if results.get("timers"):
        out.append(timers.target(results["timers"]))
    if results.get("failover"):
        out.append(failover.target(results["failover"]))
    if results.get("sinks"):
        out.append(sinks.target(results["sinks"]))
    return out


def render(results: dict[str, Any]) -> str:
    lines: list[str] = []
    add = lines.append
    plan = results["plan"]
    m = results.get("machine", {})
    reps = plan["reps"]
    add(f"Tasklife benchmark ({plan['mode']}) {results['started_at']}, commit {m.get('git_commit', '?')}")
    add(f"machine: {m.get('nproc')} cores ({m.get('cpu_model')}), {m.get('memory_gib')} GiB; "
        f"Python {m.get('python')}, grpcio {m.get('grpcio')}, psycopg {m.get('psycopg')}; "
        f"PostgreSQL {m.get('postgresql')} ({', '.join(f'{k}={v}' for k, v in m.get('pg_settings', {}).items())})")
    add(f"load average at start {m.get('loadavg_start')}, at end {m.get('loadavg_end')}; "
        f"server pool {results.get('server_pool_size', '-')}; medians of {reps} interleaved run(s) "
        f"of {plan['duration']} s after {plan['warmup']} s warm-up, [min-max] when repeated")

    tp = results.get("throughput")
    if tp:
        add("")
        add("1-2. Transitions/s through gRPC against the ceilings (latency p50/p99 in ms)")
        width = 35
        add(f"{'conc':>4} | {'pgbench transition':<{width}} | {'empty RPC (' + plan['empty_method'] + ')':<{width}} | "
            f"{'Tasklife transition':<{width}} | {'/pgbench':>8} {'/empty':>7} {'/lower':>7}")
        add(f"{'':>4} | " + " | ".join(f"{'rate/s [min-max]':<20}{'p50/p99 ms':>15}" for _ in range(3)) + " |")
        for c in tp["concurrencies"]:
            p = tp["points"][str(c)]
            cells = []
            for kind in ("pgbench", "empty", "tasklife"):
                s = p[kind]
                latency = f"{_n(s['p50_ms'], 1)}/{_n(s['p99_ms'], 1)}"
                cells.append(f"{_n(s['rate']) + _range(s, 'rate'):<20}{latency:>15}")
            add(f"{c:>4} | {cells[0]} | {cells[1]} | {cells[2]} | {_pct(p['ratio_pgbench']):>8} "
                f"{_pct(p['ratio_empty']):>7} {_pct(p['ratio_lower']):>7}")
        errors = sum(r.get("errors", 0) for c in tp["concurrencies"]
                     for runs in tp["points"][str(c)]["raw"].values() for r in runs)
        if errors:
            add(f"     ! {errors} calls failed during these runs (see raw ... error_sample in the JSON)")
        add("     lower ceiling per concurrency: " + ", ".join(
            f"{c}: {tp['points'][str(c)]['lower_ceiling']} "
            f"(per-run ratios {' '.join(_pct(r) for r in tp['points'][str(c)]['ratio_lower_runs'])})"
            for c in tp["concurrencies"]))
        add("")
        add("     CPU per operation (us; medians): where the time goes")
        add(f"{'conc':>4} | {'PG/pgbench tx':>13} | {'server/empty RPC':>16} {'loadgen/empty':>13} | "
            f"{'server/transition':>17} {'PG/transition':>13} {'loadgen/transition':>18}")
        for c in tp["concurrencies"]:
            p = tp["points"][str(c)]
            add(f"{c:>4} | {_n(p['pgbench']['pg_cpu_us_per_op']):>13} | {_n(p['empty']['server_cpu_us_per_op']):>16} "
                f"{_n(p['empty']['loadgen_cpu_us_per_op']):>13} | {_n(p['tasklife']['server_cpu_us_per_op']):>17} "
                f"{_n(p['tasklife']['pg_cpu_us_per_op']):>13} {_n(p['tasklife']['loadgen_cpu_us_per_op']):>18}")

    bt = results.get("batch")
    if bt:
        b, g = bt["batch"], bt["pgbench"]
        add("")
        add(f"2b. BatchTransitionTasks: {bt['batch_size']} PauseTask/ResumeTask items per call, {bt['concurrency']} "
            f"callers, against pgbench's single-statement transitions at c={bt['pgbench_concurrency']}")
        add(f"     {_n(b['items_per_s'])} items/s{_range(b, 'items_per_s')} (per call p50 {_n(b['p50_ms'], 1)} ms, "
            f"p99 {_n(b['p99_ms'], 1)} ms; server CPU {_n(b['server_cpu_us_per_item'])} us/item) vs pgbench "
            f"{_n(g['rate'])}/s{_range(g, 'rate')}: {bt['ratio_pgbench']:.2f}x" if bt["ratio_pgbench"] is not None
            else "     -")

    st = results.get("startup")
    if st:
        idle = st["idle"]
        add("")
        add("Start-up of a replica on a migrated database (exec to \"serving on\"; medians of "
            f"{st['reps']}; no target)")
        add(f"     idle: {_n(idle['serving_s'] * 1000)} ms with --no-migrate, of which the server's imports "
            f"{_n(idle['imports_s'] * 1000)} ms; {_n(idle['serving_with_migrations_s'] * 1000)} ms by default "
            f"(Alembic imported, and finding the schema at head)")
        add(f"     while another replica serves transitions at c=64 on the same cores: "
            f"{_n(st['under_load_serving_s'] * 1000)} ms with --no-migrate")

    lc = results.get("lifecycle")
    if lc:
        add("")
        add(f"3. Full lifecycles (CreateTask, EnqueueTask, StartTask, CompleteTask) at concurrency {lc['concurrency']}"
            + (" (runs alternating with the peer's windows)" if lc.get("alternated_with_peer") else ""))
        add(f"     {_n(lc['rate'])}/s{_range(lc, 'rate')} = {_n(lc['transitions_per_s'])} state changes/s; "
            f"per lifecycle p50 {_n(lc['p50_ms'], 1)} ms, p99 {_n(lc['p99_ms'], 1)} ms; "
            f"server CPU {_n(lc['server_cpu_us_per_lifecycle'])} us/lifecycle")
        errors = sum(r.get("errors", 0) for r in lc["raw"])
        if errors:
            add(f"     ! {errors} calls failed: {next(r['error_sample'] for r in lc['raw'] if r['errors'])}")
        ww = lc.get("worker_way")
        if ww and ww.get("lifecycles_per_s") is not None:
            add(f"     the worker way ({ww['workers']} workers, {ww['batch']} tasks per round: BatchCreateTasks, "
                f"BatchTransitionTasks enqueue, ClaimTasks, BatchTransitionTasks complete): "
                f"{_n(ww['lifecycles_per_s'])} lifecycles/s{_range(ww, 'lifecycles_per_s')}, server CPU "
                f"{_n(ww['server_cpu_us_per_lifecycle'])} us/lifecycle")
        wp = lc.get("worker_way_payloads")
        if wp and wp.get("lifecycles_per_s") is not None:
            add(f"     the worker way with a {wp['payload_bytes']:,}-byte input (returned by the claim) and result "
                f"per task: {_n(wp['lifecycles_per_s'])} lifecycles/s{_range(wp, 'lifecycles_per_s')}, "
                f"{_pct(wp['ratio'])} of the run without payloads before it; server CPU "
                f"{_n(wp['server_cpu_us_per_lifecycle'])} us/lifecycle")
        for kind, part in (("worker-way", ww), ("worker-way with payloads", wp)):
            failed = [r for r in (part or {}).get("raw", []) if r.get("errors")]
            if failed:
                add(f"     ! {sum(r['errors'] for r in failed)} {kind} rounds failed: {failed[0]['error_sample']}")
            failed = sum(r.get("errors", 0) for r in ww["raw"])
            if failed:
                add(f"     ! {failed} worker-way rounds failed: "
                    f"{next(r['error_sample'] for r in ww['raw'] if r['errors'])}")

    hp = results.get("http")
    if hp:
        add("")
        add("3b. The same calls over Connect JSON (the HTTP listener, one keep-alive connection per worker) and gRPC")
        add(f"{'conc':>4} | {'call':<10} | {'gRPC rate/s':>18} {'p50/p99 ms':>12} {'srv us':>7} | "
            f"{'Connect JSON rate/s':>19} {'p50/p99 ms':>12} {'srv us':>7} | {'Connect/gRPC':>12}")
        for c in hp["concurrencies"]:
            p = hp["points"][str(c)]
            for what, label in (("get", "GetTask"), ("transition", "transition")):
                g, k = p[f"grpc_{what}"], p[f"connect_{what}"]
                add(f"{c:>4} | {label:<10} | {_n(g['rate']) + _range(g, 'rate'):>18} "
                    f"{_n(g['p50_ms'], 2) + '/' + _n(g['p99_ms'], 2):>12} {_n(g['server_cpu_us_per_op']):>7} | "
                    f"{_n(k['rate']) + _range(k, 'rate'):>19} {_n(k['p50_ms'], 2) + '/' + _n(k['p99_ms'], 2):>12} "
                    f"{_n(k['server_cpu_us_per_op']):>7} | {_pct(p[f'ratio_{what}']):>12}")
        add("     transition: PauseTask/ResumeTask with expected_version, each worker bouncing its own task; "
            "srv us: server CPU per call")

    st = results.get("stream")
    if st:
        add("")
        add(f"4. Stream: commit (event create_time) to subscriber arrival, paced at {st['rate']:,} transitions/s"
            + (f" (half of the {_n(st['capacity'])}/s single calls measured above)" if st.get("capacity") else ""))
        add(f"{'subs':>5} | {'transitions/s':>13} {'delivered/s':>11} | {'p50 ms':>7} {'p99 ms':>8} "
            f"{'p99 by third':>22} {'max ms':>8} | {'RSS before':>10} {'after':>7} {'KiB/sub':>8} | {'open s':>6} {'srv CPU':>7}")
        for p in st["points"]:
            # The run whose p99 is the median's: how its p99 moved over the window.
            middle = min(p["raw"], key=lambda r: abs((r["p99_ms"] or 0) - (p["p99_ms"] or 0)))
            thirds = "/".join(_n(x, 0) for x in middle["p99_ms_thirds"])
            add(f"{p['subscribers']:>5} | {_n(p['transitions_per_s']):>13} {_n(p['delivered_per_s']):>11} | "
                f"{_n(p['p50_ms'], 1) + _range(p, 'p50_ms', 1):>7} {_n(p['p99_ms'], 1) + _range(p, 'p99_ms', 1):>8} "
                f"{thirds:>22} {_n(p['max_ms'], 0):>8} | "
                f"{_n(p['rss_before_mib'], 1):>8}Mi {_n(p['rss_after_mib'], 1):>5}Mi {_n(p['rss_per_subscriber_kib'], 1):>8} | "
                f"{_n(p['open_seconds'], 1):>6} {_pct(p['server_cpu_share']):>7}")
        for p in st["points"]:
            paced, delivered = p["transitions_per_s"], p["delivered_per_s"]
            if delivered > 1.1 * paced:
                add(f"     ! {p['subscribers']} subscribers: {_n(delivered)} events/s delivered but only {_n(paced)} "
                    f"transitions/s made: subscribers that started 'from now' received events committed before "
                    f"they subscribed (a stale start position?)")
            elif delivered < 0.9 * paced or paced < 0.5 * st["rate"]:
                add(f"     ! {p['subscribers']} subscribers: {_n(paced)} transitions/s paced, {_n(delivered)} "
                    f"events/s delivered in the window: the server did not keep up (subscribers reading the "
                    f"table on their own instead of the live fan-out?)")

    if st and st.get("saturated"):
        sat = st["saturated"]
        add(f"     saturated: {sat['subscribers']:,} subscribers, load paced at {_n(sat['paced_at'])}/s reached "
            f"{_n(sat['transitions_per_s'])}/s; p50 {_n(sat['p50_ms'], 1)} ms, p99 {_n(sat['p99_ms'], 1)} ms; "
            f"{sat['transitions_made']:,} transitions made, {sat['events_received']:,} events received "
            f"({sat['transitions_made'] - sat['events_received']:,} not delivered 1 s after the load ended)")

    sc = results.get("scale")
    if sc:
        add("")
        add("5. Cost growth: the same loads on a small and a large table "
            f"(Tasklife transitions at c={plan['scale_transition_concurrency']}, pgbench at "
            f"c={plan['scale_pgbench_concurrency']}, reads at c={plan['scale_read_concurrency']})")
        add(f"{'tasks':>10} {'events':>10} {'parts':>5} {'db size':>8} {'load s':>6} | {'transitions/s':>22} | "
            f"{'pgbench/s':>20} | {'GetTask p50/p99':>16} | {'ListTaskEvents p50/p99':>22} | {'catch-up events/s':>17}")
        for n in sc["sizes"]:
            p = sc["points"][str(n)]
            t, g, le, pb = p["transitions"], p["GetTask"], p["ListTaskEvents"], p["pgbench"]
            cu = p.get("catch_up") or {}
            add(f"{p['load']['tasks']:>10,} {p['load']['events']:>10,} {p['load'].get('partitions', '-'):>5} "
                f"{p['load']['database_size']:>8} "
                f"{p['load']['load_seconds'] + p['load']['vacuum_seconds']:>6.1f} | "
                f"{_n(t['rate']) + _range(t, 'rate'):>22} | {_n(pb['rate']) + _range(pb, 'rate'):>20} | "
                f"{_n(g['p50_ms'], 2) + '/' + _n(g['p99_ms'], 2):>16} | {_n(le['p50_ms'], 2) + '/' + _n(le['p99_ms'], 2):>22} | "
                f"{_n(cu.get('rate')):>17}")
        add(f"     large/small: Tasklife transitions {_pct(sc['transition_ratio'])} (per repetition "
            f"{' '.join(_pct(r) for r in sc.get('transition_ratio_runs', []))}), pgbench {_pct(sc['pgbench_ratio'])}")
        add("     catch-up: a watch from the oldest event, reading the first "
            f"{plan.get('scale_catch_up_events', 0):,} events (or all of a smaller history)")
        rp = sc.get("retention")
        if rp:
            add(f"     retention pass on the large history: {rp['seconds']:.2f} s to delete the "
                f"{rp['tasks_deleted']:,} abandoned tasks of {rp['partition']} ({rp['deleting_seconds']:.2f} s, in "
                f"batches) and drop it ({rp['events_in_partition']:,} events; {rp['dropping_seconds']:.2f} s under the "
                f"table's lock), keeping the {rp['events_kept']:,} events of the tasks that still exist")

    pr = results.get("peer")
    if pr:
        add("")
        add(f"6. Peer: Procrastinate {pr['procrastinate']} (no-op jobs, worker concurrency {pr['worker_concurrency']}, "
            f"steady backlog ~{pr['backlog']:,}) on the same PostgreSQL")
        add(f"     Procrastinate steady: {_n(pr['lifecycles_per_s'])} lifecycles/s{_range(pr, 'lifecycles_per_s')}, "
            f"{_n(pr['state_changes_per_s'])} state changes/s{_range(pr, 'state_changes_per_s')}"
            + (f"; draining {pr['drain']['jobs']:,} queued jobs: {_n(pr['drain']['lifecycles_per_s'])} lifecycles/s"
               if pr.get("drain") else ""))
        if lc:
            add(f"     Tasklife:              {_n(lc['rate'])} lifecycles/s, {_n(lc['transitions_per_s'])} state "
                f"changes/s  ({lc['rate'] / pr['lifecycles_per_s']:.2f}x lifecycles)" if pr.get("lifecycles_per_s") else "")

    wk = results.get("workers")
    if wk:
        add("")
        add("7. " + "\n".join(workers.render(wk)))

    ct = results.get("counts")
    if ct:
        add("")
        add("8. " + "\n".join(counts.render(ct)))

    bk = results.get("bulk")
    if bk:
        add("")
        add("9. " + "\n".join(bulk.render(bk)))

    ky = results.get("keys")
    if ky:
        add("")
        add("10. " + "\n".join(concurrency.render(ky)))
    tm = results.get("timers")
    if tm:
        add("")
        add("11. " + "\n".join(timers.render(tm)))
    fo = results.get("failover")
    if fo:
        add("")
        add("12. " + "\n".join(failover.render(fo)))
    sk = results.get("sinks")
    if sk:
        add("")
        add("13. " + "\n".join(sinks.render(sk)))

    prof = results.get("profile")
    if prof:
        add("")
        if "error" in prof:
            add(f"Profile: {prof['error']}")
        else:
            add(f"Server profile (py-spy, {prof['samples']} samples during a transition load at "
                f"{_n(prof['load']['rate'])}/s): top frames by own time")
            add("   (Handle._run's own time is compiled code called from the event loop: grpc.aio's Cython "
                "core, psycopg's C parts; py-spy --native splits it)")
            for frame, share in prof["own"][:12]:
                add(f"   {100 * share:5.1f}%  {frame}")
            add("   by total time:")
            for frame, share in prof["total"][:20]:
                add(f"   {100 * share:5.1f}%  {frame}")

    tg = results.get("targets")
    if tg:
        add("")
        add("Targets (reported, not asserted)")
        for t in tg:
            add(f"{'PASS' if t['pass'] else 'MISS'} {t['id']} {t['target']}: {t['measured']}")

    timings = results.get("timings", {})
    add("")
    add("took " + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items()))
    return "\n".join(lines)
