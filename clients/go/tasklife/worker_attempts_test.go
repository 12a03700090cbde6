package tasklife_test

// The Worker and attempts, against the live server: the handler's input and result, the
// failures it records, the operator of its moves, and what it logs.

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// serverMaxPayloadBytes is the test server's --max-payload-bytes (its default).
const serverMaxPayloadBytes = 256 * 1024

// readyTask creates the task req describes (its id and namespace are set here) and enqueues
// it; it returns the id.
func readyTask(t *testing.T, client *tasklife.Client, namespace string, req *pb.CreateTaskRequest) string {
	t.Helper()
	req.TaskId, req.Namespace = uniqueID("wa"), namespace
	if _, err := client.CreateTask(context.Background(), req); err != nil {
		t.Fatalf("CreateTask: %v", err)
	}
	if _, err := client.EnqueueTask(context.Background(), &pb.EnqueueTaskRequest{TaskId: req.TaskId}); err != nil {
		t.Fatalf("EnqueueTask: %v", err)
	}
	return req.TaskId
}

// failedOnce runs handler on one ready task of a fresh namespace until the worker reports
// its failure, and returns the FAIL event (the history must be create, enqueue, start, fail).
func failedOnce(t *testing.T, client *tasklife.Client, handler tasklife.Handler) (*runningWorker, *pb.TaskEvent) {
	t.Helper()
	namespace, id := oneReadyTask(t, client)
	w := startWorker(t, client, namespace, handler)
	eventually(t, "the failure", func() bool { return w.Metrics().Failed == 1 })
	return w, ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_FAIL)[3]
}

func assertFailure(t *testing.T, got, want *pb.TaskFailure) {
	t.Helper()
	if !proto.Equal(got, want) {
		t.Fatalf("failure recorded:\n got %v\nwant %v", got, want)
	}
}

func TestWorkerHandsTheHandlerTheTaskWithItsInput(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace := uniqueNamespace("wa")
	input := tasklife.BytesPayload([]byte(`{"n": 1}`), "application/json")
	readyTask(t, client, namespace, &pb.CreateTaskRequest{Input: input})
	var seen atomic.Pointer[pb.Task]
	w := startWorker(t, client, namespace, func(_ context.Context, task *pb.Task) error {
		seen.Store(task)
		return nil
	})

	eventually(t, "the completion", func() bool { return w.Metrics().Completed == 1 })
	if got := seen.Load().GetInput(); !proto.Equal(got, input) {
		t.Fatalf("the handler got input %v, want %v", got, input)
	}
}

func TestWorkerStoresTheResultTheHandlerReturns(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace, id := oneReadyTask(t, client)
	w := startResultWorker(t, client, namespace, func(context.Context, *pb.Task) (*pb.TaskPayload, error) {
		return tasklife.TextPayload("rows=1234"), nil
	})

	eventually(t, "the completion", func() bool { return w.Metrics().Completed == 1 })
	ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_COMPLETE)
	want := &pb.TaskPayload{Data: []byte("rows=1234"), ContentType: "text/plain; charset=utf-8"}
	if result := currentTask(t, client, id).GetResult(); !proto.Equal(result, want) {
		t.Fatalf("GetTask result %v, want %v", result, want)
	}
}

func TestWorkerRecordsATypedFailureWithItsExitCodeAndDoesNotRetryANonRetryableOne(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace := uniqueNamespace("wa")
	id := readyTask(t, client, namespace, &pb.CreateTaskRequest{RetryPolicy: &pb.RetryPolicy{MaxAttempts: 3, InitialBackoff: durationpb.New(0)}})
	details := tasklife.TextPayload("line 7")
	var calls atomic.Int64
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error {
		calls.Add(1)
		return &tasklife.Failure{Type: "BadInput", Message: "the input is malformed", ExitCode: 2, NonRetryable: true, Details: details}
	})

	eventually(t, "the failure", func() bool { return w.Metrics().Failed == 1 })
	// A retry would be claimed at once (no backoff, the worker claiming): give it the time.
	time.Sleep(time.Second)
	fail := ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_FAIL)[3]
	assertFailure(t, fail.GetFailure(), &pb.TaskFailure{ErrorType: "BadInput", Message: "the input is malformed",
		ExitCode: proto.Int32(2), NonRetryable: true, Details: details})
	if fail.GetExitCode() != 2 || fail.GetReason() != "BadInput: the input is malformed" {
		t.Fatalf("FAIL event exit code %d, reason %q", fail.GetExitCode(), fail.GetReason())
	}
	if state := currentTask(t, client, id).GetState(); state != pb.TaskState_TASK_STATE_FAILED || calls.Load() != 1 {
		t.Fatalf("task %v after %d handler calls, want FAILED after one", state, calls.Load())
	}
}

func TestWorkerRecordsAPlainErrorAsAFailureOfItsTypeWithItsText(t *testing.T) {
	t.Parallel()
	client := connect(t)
	missing := filepath.Join(t.TempDir(), "missing.csv")
	_, fail := failedOnce(t, client, func(context.Context, *pb.Task) error {
		_, err := os.Open(missing)
		return fmt.Errorf("load rows: %w", err) // *fs.PathError, wrapped
	})

	assertFailure(t, fail.GetFailure(), &pb.TaskFailure{ErrorType: "fs.PathError",
		Message: fmt.Sprintf("load rows: open %s: no such file or directory", missing)})
}

func TestWorkerRecordsAPanicWithItsStackTrace(t *testing.T) {
	t.Parallel()
	client := connect(t)
	_, fail := failedOnce(t, client, func(context.Context, *pb.Task) error { panic("index out of range") })

	failure := fail.GetFailure()
	if failure.GetErrorType() != "panic" || failure.GetMessage() != "index out of range" {
		t.Fatalf("failure %v, want type panic with the panic's value as message", failure)
	}
	// The stack goes from the panic through the handler, this file's function literal.
	if stack := failure.GetStackTrace(); !strings.Contains(stack, "panic(") || !strings.Contains(stack, "TestWorkerRecordsAPanicWithItsStackTrace.func") {
		t.Fatalf("stack trace does not show the panic in the handler:\n%s", stack)
	}
}

func TestWorkerMakesAnInvalidErrorTypeMatchThePattern(t *testing.T) {
	t.Parallel()
	client := connect(t)
	_, fail := failedOnce(t, client, func(context.Context, *pb.Task) error {
		return &tasklife.Failure{Type: "9 bad type/ü", Message: "typed badly"}
	})

	if got := fail.GetFailure().GetErrorType(); got != "E9_bad_type__" {
		t.Fatalf("error_type %q, want the invalid characters replaced and a letter first: E9_bad_type__", got)
	}
}

func TestWorkerLogsAFailedHandlerWithTheTaskAttemptAndErrorType(t *testing.T) {
	t.Parallel()
	client := connect(t)
	w, fail := failedOnce(t, client, func(context.Context, *pb.Task) error {
		return &tasklife.Failure{Type: "DiskFull", Message: "no space left on /data"}
	})

	line := fmt.Sprintf(`"task %s attempt 1: handler failed: DiskFull: no space left on /data"`, fail.GetTaskId())
	if logs := w.logs.String(); !strings.Contains(logs, line) || !strings.Contains(logs, "error_type=DiskFull") {
		t.Fatalf("no log line %s with error_type=DiskFull:\n%s", line, logs)
	}
}

// assertMovesBy checks that the moves of a task the worker ran once to completion (the
// claim's start and the completion) name operator and worker.
func assertMovesBy(t *testing.T, client *tasklife.Client, id, operator, worker string) {
	t.Helper()
	for _, move := range ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_COMPLETE)[2:] {
		if move.GetOperator() != operator || move.GetWorker() != worker {
			t.Fatalf("%v by operator %q for worker %q, want operator %q for worker %q",
				move.GetAction(), move.GetOperator(), move.GetWorker(), operator, worker)
		}
	}
}

func TestWorkerNamesItselfAsTheOperatorOfItsMoves(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace, id := oneReadyTask(t, client)
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error { return nil })

	eventually(t, "the completion", func() bool { return w.Metrics().Completed == 1 })
	assertMovesBy(t, client, id, w.Name(), w.Name())
}

func TestWorkerRecordsTheOperatorItIsGivenInsteadOfItsName(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace, id := oneReadyTask(t, client)
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error { return nil },
		func(o *tasklife.WorkerOptions) { o.Operator = "etl-bot" })

	eventually(t, "the completion", func() bool { return w.Metrics().Completed == 1 })
	assertMovesBy(t, client, id, "etl-bot", w.Name())
}

// A server that authenticates refuses an operator other than the principal, so a worker
// given credentials sends none: the server records the principal.
func TestWorkerLeavesTheOperatorToTheServerWhenTheClientHasCredentials(t *testing.T) {
	address, token := securedServer(t)
	client := connectTo(t, address, tasklife.WithInsecureBearerToken(token))
	queue := map[string]string{"queue": uniqueID("q")}
	id := readyTask(t, client, securedNamespace, &pb.CreateTaskRequest{Labels: queue})
	w := startWorker(t, client, securedNamespace, func(context.Context, *pb.Task) error { return nil },
		func(o *tasklife.WorkerOptions) { o.Labels = queue })

	eventually(t, "the completion", func() bool { return w.Metrics().Completed == 1 })
	assertMovesBy(t, client, id, securedPrincipal, w.Name())
}

func TestWorkerFailsATaskWhoseResultTheServerRefusesAsInvalidResult(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace, id := oneReadyTask(t, client)
	w := startResultWorker(t, client, namespace, func(context.Context, *pb.Task) (*pb.TaskPayload, error) {
		return tasklife.BytesPayload(make([]byte, serverMaxPayloadBytes+1), "application/octet-stream"), nil
	})

	eventually(t, "the failure", func() bool { return w.Metrics().Failed == 1 })
	fail := ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_FAIL)[3]
	failure := fail.GetFailure()
	if failure.GetErrorType() != "tasklife.InvalidResult" || !failure.GetNonRetryable() || !strings.Contains(failure.GetMessage(), "result") {
		t.Fatalf("failure %v, want a non-retryable tasklife.InvalidResult with the refusal's message", failure)
	}
	if want := fmt.Sprintf("%s:%s:1:fail", w.Name(), id); fail.GetRequestId() != want {
		t.Fatalf("FailTask request_id %q, want %q", fail.GetRequestId(), want)
	}
	if logs := w.logs.String(); !strings.Contains(logs, fmt.Sprintf("task %s attempt 1: the server refused the handler's result", id)) {
		t.Fatalf("no log line says the result was refused:\n%s", logs)
	}
}

func TestWorkerReportsAFailureWithoutTheDetailsTheServerRefuses(t *testing.T) {
	t.Parallel()
	client := connect(t)
	_, fail := failedOnce(t, client, func(context.Context, *pb.Task) error {
		return &tasklife.Failure{Type: "BadInput", Message: "row 7", Details: tasklife.BytesPayload([]byte("x"), "")} // no content type
	})

	assertFailure(t, fail.GetFailure(), &pb.TaskFailure{ErrorType: "BadInput", Message: "row 7"})
}

func TestWorkerLogsWithinTwoSecondsThatItCannotReachTheServer(t *testing.T) {
	t.Parallel()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := listener.Addr().String()
	listener.Close() // nothing listens there any more
	client := connectTo(t, address)
	began := time.Now()
	w := startWorker(t, client, "", func(context.Context, *pb.Task) error { return nil })

	line := fmt.Sprintf("cannot reach the Tasklife server at %s", address)
	for !strings.Contains(w.logs.String(), line) {
		if time.Since(began) > 2*time.Second {
			t.Fatalf("no log line %q within 2 s:\n%s", line, w.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWorkerLogsAnOutageOnceAndOnceThatItIsOver(t *testing.T) {
	t.Parallel()
	injected := newFaults()
	client := connect(t, injected.option())
	injected.set("ClaimTasks", refuse)
	w := startWorker(t, client, uniqueNamespace("wa"), func(context.Context, *pb.Task) error { return nil },
		func(o *tasklife.WorkerOptions) {
			o.Backoff = tasklife.Backoff{Initial: time.Millisecond, Max: 10 * time.Millisecond}
		})

	eventually(t, "five refused claims", func() bool { return len(injected.requests("ClaimTasks")) >= 5 })
	injected.set("ClaimTasks", 0)
	eventually(t, "the line saying the server answers again", func() bool { return strings.Contains(w.logs.String(), "reached the Tasklife server at") })
	logs := w.logs.String()
	if n := strings.Count(logs, "cannot reach the Tasklife server at"); n != 1 || strings.Contains(logs, "claim failed") {
		t.Fatalf("want one line for the outage and none per retry, got %d:\n%s", n, logs)
	}
}

// Twenty results of 250 KiB are 5 MB, more than the server takes in one call (4 MiB): the
// worker reports them in calls small enough, never as one call refused again and again.
func TestWorkerReportsResultsThatTogetherExceedTheServersMessageLimit(t *testing.T) {
	t.Parallel()
	injected := newFaults()
	client := connect(t, injected.option())
	namespace := uniqueNamespace("wa")
	const tasks = 20
	ids := readyTasks(t, client, namespace, tasks)
	injected.set("BatchTransitionTasks", hold) // until every outcome waits for its report
	var returned atomic.Int64
	w := startResultWorker(t, client, namespace, func(context.Context, *pb.Task) (*pb.TaskPayload, error) {
		defer returned.Add(1)
		return tasklife.BytesPayload(make([]byte, 250*1024), "application/octet-stream"), nil
	}, func(o *tasklife.WorkerOptions) { o.Concurrency = tasks })

	eventually(t, "every handler to return", func() bool { return returned.Load() == tasks })
	injected.release()
	eventually(t, "every completion", func() bool { return w.Metrics().Completed == tasks })
	for _, id := range ids {
		ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_COMPLETE)
	}
	if m := w.Metrics(); m.ReportFailures != 0 || m.Failed != 0 {
		t.Fatalf("metrics %+v, want no failure", m)
	}
}
