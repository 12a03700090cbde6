"""The Go client (clients/go): its own test suite against the live server, and its generated
code against a fresh generation from proto/.

The Go suite includes the shared conformance scenario, a linearizability check of
concurrent compare-and-swap transitions, the bearer-token test against a server that
authenticates callers (`secured_server`, tests/clients/conftest.py), the Worker's tests and the
reference worker's; all are asserted to have run, not skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients.conftest import secured_env
from tests.conftest import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
GO_CLIENT = ROOT / "clients" / "go"
GENERATED = "tasklifev1"

# Cold runs download modules and compile gRPC on two cores; warm runs take seconds.
GO_TEST_TIMEOUT = 900
GENERATE_TIMEOUT = 600
OUTPUT_TAIL = 6000

# Tests that must have run and passed, not merely not failed.
REQUIRED_GO_TESTS = (
    "TestConformanceScenario",
    "TestConcurrentCompareAndSwapTransitionsAreLinearizable",
    "TestBearerTokenAuthenticatesAgainstTheSecuredServer",
    "TestEveryRPCOfTheServiceHasAWrapperMethod",
    "TestBatchTransitionTasksReportsAnItemsRefusalAsTheSingleRPCsTypedError",
    "TestClaimTasksStartsTheOldestReadyTasksForTheWorker",
    # The Worker (clients/go/tasklife/worker*.go), one behaviour each, against the live server.
    "TestWorkerCompletesATaskWhoseHandlerReturnsNil",
    "TestWorkerFailsATaskWithTheHandlersErrorAsTheReason",
    "TestWorkerFailsATaskWhoseHandlerPanics",
    "TestWorkerCancelsTheHandlerAndDropsItsResultWhenAnOperatorTakesTheTaskAway/PauseTask",
    "TestWorkerCancelsTheHandlerAndDropsItsResultWhenAnOperatorTakesTheTaskAway/KillTask",
    "TestWorkerCancelsTheHandlerOnAKillWithGraceAndConfirmsIt",
    "TestWorkerStopLetsTheHandlersInFlightFinishAndClaimsNothingMore",
    "TestWorkerStopFailsTheTaskOfAHandlerThatOutlivesTheGracePeriod",
    "TestWorkerRunsAtMostConcurrencyHandlersAtOnce",
    "TestWorkerReportsOutcomesThatFinishTogetherInFewerCallsThanTasks",
    "TestWorkerRetriesALostClaimWithTheSameRequestIDAndGetsItsTasks",
    "TestWorkerRetriesALostReportWithTheSameRequestIDsAndRecordsItOnce",
    "TestWorkerTreatsTheLeaseAsLostWhenNoHeartbeatSucceedsForAWholeLease",
    "TestWorkerClaimsTheNextTaskBeforeTheLastOnesReportIsAnswered",
    "TestWorkerHoldsAtMostTwiceConcurrencyTasksWhileReportsAreUnanswered",
    "TestWorkerClaimsOnceForHandlersThatReturnOneByOneWhileTheirReportsAreUnanswered",
    "TestWorkerClaimsForPartOfARoundOnceTheOutcomesBeforeItAreReported",
    # Attempts: the Worker's input, result, failures, operator and logs against the live server
    # (clients/go/tasklife/worker_attempts_test.go), DescribeFailure, and the attempts RPCs.
    "TestWorkerHandsTheHandlerTheTaskWithItsInput",
    "TestWorkerStoresTheResultTheHandlerReturns",
    "TestWorkerRecordsATypedFailureWithItsExitCodeAndDoesNotRetryANonRetryableOne",
    "TestWorkerRecordsAPlainErrorAsAFailureOfItsTypeWithItsText",
    "TestWorkerRecordsAPanicWithItsStackTrace",
    "TestWorkerMakesAnInvalidErrorTypeMatchThePattern",
    "TestWorkerLogsAFailedHandlerWithTheTaskAttemptAndErrorType",
    "TestWorkerNamesItselfAsTheOperatorOfItsMoves",
    "TestWorkerRecordsTheOperatorItIsGivenInsteadOfItsName",
    "TestWorkerLeavesTheOperatorToTheServerWhenTheClientHasCredentials",
    "TestWorkerFailsATaskWhoseResultTheServerRefusesAsInvalidResult",
    "TestWorkerReportsAFailureWithoutTheDetailsTheServerRefuses",
    "TestWorkerReportsResultsThatTogetherExceedTheServersMessageLimit",
    "TestWorkerLogsWithinTwoSecondsThatItCannotReachTheServer",
    "TestWorkerLogsAnOutageOnceAndOnceThatItIsOver",
    "TestDescribeFailureTakesTheExitCodeOfAProcessThatExitedWithOne",
    "TestDescribeFailureMakesAnErrorTypeMatchThePatternAndCutsItTo128Characters",
    "TestDescribeFailureCutsTheMessageTo4KiBOnACharacterBoundaryAndReplacesNUL",
    "TestAllTaskAttemptsFollowsThePagesOfATasksAttempts",
    "TestListTaskFailuresCountsEveryMatchByTypeAndAllTaskFailuresPagesThemNewestFirst",
    "TestWatchWithActionsDeliversOnlyThoseActions",
    "TestSubsetMatchMatchesEachElementOfARepeatedMessageFieldAsASubset",
    # clients/go/reference-worker.sh on 50 ready tasks.
    "TestReferenceWorkerCompletesFiftyReadyTasksExactlyOnce",
)


def require_go() -> str:
    """The `go` executable; without it, fail on CI and skip loudly elsewhere."""
    go = shutil.which("go")
    if go is None:
        message = "the Go toolchain is missing: `go` (1.26 or later) is not on PATH, so clients/go cannot be tested"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(f"SKIPPED, NOT TESTED: {message}")
    return go


def tail(text: str) -> str:
    """The end of the output, after every failure line and file:line message in it, so that
    the failing test is named even when the output is long."""
    if len(text) <= OUTPUT_TAIL:
        return text
    failures = [line for line in text.splitlines() if "--- FAIL" in line or "_test.go:" in line]
    return "\n".join(failures[:40]) + "\n...\n" + text[-OUTPUT_TAIL:]


def test_go_client_passes_its_test_suite_against_the_live_server(
    server: ServerProcess, secured_server: ServerProcess
) -> None:
    # `server` is the session's live server process (tests/conftest.py), `secured_server` the one
    # that authenticates callers (tests/clients/conftest.py); their addresses are host:port.
    go = require_go()
    result = subprocess.run(
        [go, "test", "-count=1", "-v", "./..."],
        cwd=GO_CLIENT,
        env={**os.environ, "TASKLIFE_ADDRESS": server.address, **secured_env(secured_server)},
        capture_output=True,
        text=True,
        timeout=GO_TEST_TIMEOUT,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"`go test ./...` in clients/go failed:\n{tail(output)}"
    for name in REQUIRED_GO_TESTS:
        assert f"--- PASS: {name} " in output, f"{name} did not run and pass:\n{tail(output)}"


def generated_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_committed_go_code_matches_proto(tmp_path: Path) -> None:
    require_go()
    result = subprocess.run(
        ["bash", str(GO_CLIENT / "generate.sh"), str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, "PYTHON": sys.executable},  # the interpreter with the pinned grpcio-tools
        capture_output=True,
        text=True,
        timeout=GENERATE_TIMEOUT,
    )
    assert result.returncode == 0, f"clients/go/generate.sh failed:\n{tail(result.stdout + result.stderr)}"
    fresh = generated_files(tmp_path / GENERATED)
    committed = generated_files(GO_CLIENT / GENERATED)
    assert fresh, "clients/go/generate.sh produced nothing"
    assert sorted(committed) == sorted(fresh), (
        f"the files in clients/go/{GENERATED} differ from a fresh generation "
        f"(committed {sorted(committed)}, fresh {sorted(fresh)}): run `make generate` (clients/go/generate.sh) and commit"
    )
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"clients/go/{GENERATED} is out of date with proto/: {stale}; run `make generate` (clients/go/generate.sh) and commit"
