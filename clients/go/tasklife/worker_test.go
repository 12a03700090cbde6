package tasklife_test

// The Worker against the live server: each test runs a worker on its own namespace and
// checks what the server recorded (history and final state), not how fast it happened.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// Short leases and frequent heartbeats keep each test to a few seconds; the waits are
// generous because two loaded cores can stall anything for a while.
const (
	testLease     = 2 * time.Second
	testHeartbeat = 300 * time.Millisecond
	testClaimWait = time.Second
	outcomeWait   = 20 * time.Second
)

// logBuffer collects a worker's log lines for the test to read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// runningWorker is a worker under test: Run in the background, stopped at the latest
// when the test ends.
type runningWorker struct {
	*tasklife.Worker
	cancel context.CancelFunc
	result chan error
	logs   *logBuffer
}

// startWorker runs a worker with the test settings on namespace; opts may change them.
func startWorker(t *testing.T, client *tasklife.Client, namespace string, handler tasklife.Handler, opts ...func(*tasklife.WorkerOptions)) *runningWorker {
	t.Helper()
	return startWorkerMadeBy(t, namespace, func(options tasklife.WorkerOptions) (*tasklife.Worker, error) {
		return tasklife.NewWorker(client, handler, options)
	}, opts...)
}

// startResultWorker is startWorker for a handler that returns a result.
func startResultWorker(t *testing.T, client *tasklife.Client, namespace string, handler tasklife.ResultHandler, opts ...func(*tasklife.WorkerOptions)) *runningWorker {
	t.Helper()
	return startWorkerMadeBy(t, namespace, func(options tasklife.WorkerOptions) (*tasklife.Worker, error) {
		return tasklife.NewResultWorker(client, handler, options)
	}, opts...)
}

func startWorkerMadeBy(t *testing.T, namespace string, newWorker func(tasklife.WorkerOptions) (*tasklife.Worker, error), opts ...func(*tasklife.WorkerOptions)) *runningWorker {
	t.Helper()
	logs := &logBuffer{}
	options := tasklife.WorkerOptions{
		Namespace:         namespace,
		LeaseDuration:     testLease,
		HeartbeatInterval: testHeartbeat,
		ClaimWait:         testClaimWait,
		GracePeriod:       10 * time.Second,
		Name:              uniqueID("gw"),
		Logger:            slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, opt := range opts {
		opt(&options)
	}
	worker, err := newWorker(options)
	if err != nil {
		t.Fatalf("NewWorker: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &runningWorker{Worker: worker, cancel: cancel, result: make(chan error, 1), logs: logs}
	go func() { w.result <- worker.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-w.result:
		case <-time.After(outcomeWait):
			t.Errorf("the worker did not stop")
		}
		if t.Failed() {
			t.Logf("worker log:\n%s", logs.String())
		}
	})
	return w
}

// awaitRun waits for Run to return (after a stop) and returns its result.
func (w *runningWorker) awaitRun(t *testing.T) error {
	t.Helper()
	select {
	case err := <-w.result:
		w.result <- err // for the cleanup
		return err
	case <-time.After(outcomeWait):
		t.Fatalf("Run did not return within %s", outcomeWait)
		return nil
	}
}

// eventually waits until condition holds, failing the test after outcomeWait.
func eventually(t *testing.T, what string, condition func() bool) {
	t.Helper()
	deadline := time.Now().Add(outcomeWait)
	for !condition() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// received waits for a signal from a handler.
func received(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(outcomeWait):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// history is the task's whole history, oldest first.
func history(t *testing.T, client *tasklife.Client, id string) []*pb.TaskEvent {
	t.Helper()
	var events []*pb.TaskEvent
	for event, err := range client.AllTaskEvents(context.Background(), &pb.ListTaskEventsRequest{TaskId: id}) {
		if err != nil {
			t.Fatalf("ListTaskEvents %s: %v", id, err)
		}
		events = append(events, event)
	}
	return events
}

func actions(events []*pb.TaskEvent) []pb.TaskAction {
	out := make([]pb.TaskAction, len(events))
	for i, e := range events {
		out[i] = e.GetAction()
	}
	return out
}

// ranOnce checks the task's history is create, enqueue, one start by the worker's claim,
// then `last` (nil: nothing more), and returns the last event.
func ranOnce(t *testing.T, client *tasklife.Client, id string, last ...pb.TaskAction) []*pb.TaskEvent {
	t.Helper()
	events := history(t, client, id)
	want := append([]pb.TaskAction{pb.TaskAction_TASK_ACTION_CREATE, pb.TaskAction_TASK_ACTION_ENQUEUE, pb.TaskAction_TASK_ACTION_START}, last...)
	if got := actions(events); !slices.Equal(got, want) {
		t.Fatalf("task %s: history %v, want %v", id, got, want)
	}
	return events
}

func currentTask(t *testing.T, client *tasklife.Client, id string) *pb.Task {
	t.Helper()
	resp, err := client.GetTask(context.Background(), &pb.GetTaskRequest{TaskId: id})
	if err != nil {
		t.Fatalf("GetTask %s: %v", id, err)
	}
	return resp.GetTask()
}

// blocking is a handler that runs until its context is cancelled, then returns nil (which
// would complete the task, were the result reported), saying when it started and why it
// was cancelled.
type blocking struct {
	started, cancelled chan struct{}
	cause              atomic.Value // error: context.Cause of the handler's context
}

func newBlocking() *blocking {
	return &blocking{started: make(chan struct{}), cancelled: make(chan struct{})}
}

func (b *blocking) handle(ctx context.Context, _ *pb.Task) error {
	close(b.started)
	<-ctx.Done()
	b.cause.Store(context.Cause(ctx))
	close(b.cancelled)
	return nil
}

// awaitCancel waits for the handler's cancellation and returns its cause.
func (b *blocking) awaitCancel(t *testing.T) error {
	t.Helper()
	received(t, "the handler to be cancelled", b.cancelled)
	return b.cause.Load().(error)
}

// oneReadyTask is a fresh namespace holding one ready task, and the task's id.
func oneReadyTask(t *testing.T, client *tasklife.Client) (namespace, id string) {
	t.Helper()
	namespace = uniqueNamespace("wk")
	return namespace, readyTasks(t, client, namespace, 1)[0]
}

func TestWorkerCompletesATaskWhoseHandlerReturnsNil(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace, id := oneReadyTask(t, client)
	var seen atomic.Value
	w := startWorker(t, client, namespace, func(_ context.Context, task *pb.Task) error {
		seen.Store(task)
		return nil
	})

	eventually(t, "the completion", func() bool { return w.Metrics().Completed == 1 })
	events := ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_COMPLETE)
	if want := fmt.Sprintf("%s:%s:1:complete", w.Name(), id); events[3].GetRequestId() != want {
		t.Fatalf("CompleteTask request_id %q, want %q", events[3].GetRequestId(), want)
	}
	// Task.worker is set only while the task runs: who ran it is in the history.
	if state := currentTask(t, client, id).GetState(); state != pb.TaskState_TASK_STATE_SUCCEEDED ||
		events[2].GetWorker() != w.Name() || events[3].GetWorker() != w.Name() {
		t.Fatalf("want SUCCEEDED, started and completed by %s; got %v, started by %q and completed by %q",
			w.Name(), state, events[2].GetWorker(), events[3].GetWorker())
	}
	if handed := seen.Load().(*pb.Task); handed.GetTaskId() != id || handed.GetState() != pb.TaskState_TASK_STATE_RUNNING {
		t.Fatalf("the handler got %v, want task %s as claimed (RUNNING)", handed, id)
	}
	if m := w.Metrics(); m.Claimed != 1 || m.Failed != 0 || m.Dropped != 0 || m.Running != 0 {
		t.Fatalf("metrics %+v", m)
	}
}

func TestWorkerFailsATaskWithTheHandlersErrorAsTheReason(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace, id := oneReadyTask(t, client)
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error { return errors.New("disk full") })

	eventually(t, "the failure", func() bool { return w.Metrics().Failed == 1 })
	events := ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_FAIL)
	fail := events[3]
	if fail.GetReason() != "errors.errorString: disk full" {
		t.Fatalf("FailTask reason %q, want the error's type and text", fail.GetReason())
	}
	if want := fmt.Sprintf("%s:%s:1:fail", w.Name(), id); fail.GetRequestId() != want {
		t.Fatalf("FailTask request_id %q, want %q", fail.GetRequestId(), want)
	}
}

func TestWorkerFailsATaskWhoseHandlerPanics(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace, id := oneReadyTask(t, client)
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error { panic("index out of range") })

	eventually(t, "the failure", func() bool { return w.Metrics().Failed == 1 })
	events := ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_FAIL)
	if reason := events[3].GetReason(); reason != "panic: index out of range" {
		t.Fatalf("FailTask reason %q, want the panic's value", reason)
	}
}

func TestWorkerTruncatesALongFailureReasonToAKilobyteOnACharacterBoundary(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace, id := oneReadyTask(t, client)
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error {
		return errors.New("x" + strings.Repeat("é", 1000)) // two bytes each, after one
	})

	eventually(t, "the failure", func() bool { return w.Metrics().Failed == 1 })
	reason := ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_FAIL)[3].GetReason()
	prefix := "errors.errorString: x" // 21 bytes: 501 of the 2-byte characters fit in the 1003 left
	if reason != prefix+strings.Repeat("é", 501) || len(reason) != 1023 || !utf8.ValidString(reason) {
		t.Fatalf("reason of %d bytes %q..., want the first 1023 bytes that end on a character", len(reason), reason[:40])
	}
}

func TestWorkerReplacesBytesThatAreNotUTF8InAFailureReason(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace, id := oneReadyTask(t, client)
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error { return errors.New("bad \xff byte") })

	eventually(t, "the failure", func() bool { return w.Metrics().Failed == 1 })
	if reason := ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_FAIL)[3].GetReason(); reason != "errors.errorString: bad \uFFFD byte" {
		t.Fatalf("FailTask reason %q, want the invalid byte replaced by U+FFFD", reason)
	}
}

func TestWorkerRenewsTheLeaseOfAHandlerThatRunsLongerThanIt(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace, id := oneReadyTask(t, client)
	w := startWorker(t, client, namespace, func(ctx context.Context, _ *pb.Task) error {
		select {
		case <-time.After(3 * time.Second): // three leases of one second
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}, func(o *tasklife.WorkerOptions) { o.LeaseDuration = time.Second })

	eventually(t, "the completion", func() bool { return w.Metrics().Completed+w.Metrics().Dropped == 1 })
	ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_COMPLETE)
}

// An operator taking a running task away (pausing or killing it) makes the next heartbeat
// answer LEASE_LOST: the handler is cancelled and its result dropped.
func TestWorkerCancelsTheHandlerAndDropsItsResultWhenAnOperatorTakesTheTaskAway(t *testing.T) {
	t.Parallel()
	for _, operator := range []struct {
		action    string
		takeAway  func(*tasklife.Client, string) error
		last      pb.TaskAction
		state     pb.TaskState
		stateName string
	}{
		{"PauseTask", func(c *tasklife.Client, id string) error {
			_, err := c.PauseTask(context.Background(), &pb.PauseTaskRequest{TaskId: id, Operator: "ops"})
			return err
		}, pb.TaskAction_TASK_ACTION_PAUSE, pb.TaskState_TASK_STATE_PAUSED, "PAUSED"},
		{"KillTask", func(c *tasklife.Client, id string) error {
			_, err := c.KillTask(context.Background(), &pb.KillTaskRequest{TaskId: id, Operator: "ops", Reason: "runaway"})
			return err
		}, pb.TaskAction_TASK_ACTION_KILL, pb.TaskState_TASK_STATE_KILLED, "KILLED"},
	} {
		t.Run(operator.action, func(t *testing.T) {
			t.Parallel()
			client := connect(t)
			namespace, id := oneReadyTask(t, client)
			handler := newBlocking()
			w := startWorker(t, client, namespace, handler.handle)

			received(t, "the handler to start", handler.started)
			if err := operator.takeAway(client, id); err != nil {
				t.Fatalf("%s: %v", operator.action, err)
			}
			if cause := handler.awaitCancel(t); !errors.Is(cause, tasklife.ErrLeaseLost) {
				t.Fatalf("the context's cause is %v, want ErrLeaseLost", cause)
			}
			eventually(t, "the drop", func() bool { return w.Metrics().Dropped == 1 })
			w.Stop()
			if err := w.awaitRun(t); err != nil {
				t.Fatalf("Run: %v", err)
			}
			ranOnce(t, client, id, operator.last)
			if state := currentTask(t, client, id).GetState(); state != operator.state {
				t.Fatalf("state %v, want %v", state, operator.state)
			}
			if m := w.Metrics(); m.Completed != 0 || m.Failed != 0 || m.ReportCalls != 0 {
				t.Fatalf("a dropped result was reported: %+v", m)
			}
			line := fmt.Sprintf("task %s: lease lost (state %s", id, operator.stateName)
			if logs := w.logs.String(); !strings.Contains(logs, line) || !strings.Contains(logs, "handler cancelled, result dropped") {
				t.Fatalf("no log line says why the result was dropped (%q...):\n%s", line, logs)
			}
		})
	}
}

// A kill with a grace period reaches the handler through the next heartbeat: its context is
// cancelled with ErrKillRequested, and once it returns the worker confirms with KillTask.
func TestWorkerCancelsTheHandlerOnAKillWithGraceAndConfirmsIt(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace, id := oneReadyTask(t, client)
	handler := newBlocking()
	w := startWorker(t, client, namespace, handler.handle)

	received(t, "the handler to start", handler.started)
	if _, err := client.KillTask(context.Background(), &pb.KillTaskRequest{
		TaskId: id, Operator: "ops", Reason: "drain", GracePeriod: durationpb.New(time.Minute),
	}); err != nil {
		t.Fatalf("KillTask: %v", err)
	}
	if cause := handler.awaitCancel(t); !errors.Is(cause, tasklife.ErrKillRequested) {
		t.Fatalf("the context's cause is %v, want ErrKillRequested", cause)
	}
	eventually(t, "the confirmed kill", func() bool { return w.Metrics().Killed == 1 })
	events := ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_KILL)
	kill := events[len(events)-1]
	if got := kill.GetGracefulKill(); got.GetRequestedBy() != "ops" || got.GetReason() != "drain" ||
		got.GetOutcome() != pb.KillOutcome_KILL_OUTCOME_CONFIRMED {
		t.Fatalf("the KILL event's graceful_kill is %v, want asked by ops for drain, confirmed", got)
	}
	if kill.GetOperator() != w.Name() {
		t.Fatalf("the KILL event's operator is %q, want the worker %q", kill.GetOperator(), w.Name())
	}
}

func TestWorkerStopLetsTheHandlersInFlightFinishAndClaimsNothingMore(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace := uniqueNamespace("wk")
	ids := readyTasks(t, client, namespace, 2)
	started := make(chan struct{}, 2)
	w := startWorker(t, client, namespace, func(ctx context.Context, _ *pb.Task) error {
		started <- struct{}{}
		time.Sleep(500 * time.Millisecond) // finishes well inside the grace period
		return nil
	}, func(o *tasklife.WorkerOptions) { o.Concurrency = 1 })

	received(t, "the first handler to start", started)
	w.cancel() // the same as a SIGTERM through signal.NotifyContext
	if err := w.awaitRun(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	ranOnce(t, client, ids[0], pb.TaskAction_TASK_ACTION_COMPLETE)
	if state := currentTask(t, client, ids[1]).GetState(); state != pb.TaskState_TASK_STATE_READY {
		t.Fatalf("the second task is %v: the stopped worker claimed it", state)
	}
	if m := w.Metrics(); m.Claimed != 1 || m.Completed != 1 {
		t.Fatalf("metrics %+v, want one claimed and completed", m)
	}
}

func TestWorkerStopFailsTheTaskOfAHandlerThatOutlivesTheGracePeriod(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace, id := oneReadyTask(t, client)
	handler := newBlocking()
	w := startWorker(t, client, namespace, handler.handle, func(o *tasklife.WorkerOptions) { o.GracePeriod = 300 * time.Millisecond })

	received(t, "the handler to start", handler.started)
	w.Stop()
	if err := w.awaitRun(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	fail := ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_FAIL)[3]
	if want := fmt.Sprintf("worker %s stopping: grace period of 0.3s passed", w.Name()); fail.GetReason() != want {
		t.Fatalf("FailTask reason %q, want %q", fail.GetReason(), want)
	}
	if cause := handler.awaitCancel(t); !errors.Is(cause, tasklife.ErrWorkerStopping) {
		t.Fatalf("the context's cause is %v, want ErrWorkerStopping", cause)
	}
}

func TestWorkerRunsAtMostConcurrencyHandlersAtOnce(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace := uniqueNamespace("wk")
	ids := readyTasks(t, client, namespace, 9)
	var entered, running, most atomic.Int64
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error {
		now := running.Add(1)
		defer running.Add(-1)
		for seen := most.Load(); now > seen && !most.CompareAndSwap(seen, now); seen = most.Load() {
		}
		// The first handlers stay until the limit is reached (or a while), and every one
		// stays a little, so that a worker exceeding the limit would show.
		first := entered.Add(1) <= 3
		for deadline := time.Now().Add(2 * time.Second); first && running.Load() < 3 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		return nil
	}, func(o *tasklife.WorkerOptions) { o.Concurrency = 3 })

	eventually(t, "every completion", func() bool { return w.Metrics().Completed == 9 })
	if most.Load() != 3 {
		t.Fatalf("at most %d handlers ran at once, want exactly the limit of 3", most.Load())
	}
	for _, id := range ids {
		ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_COMPLETE)
	}
}

func TestWorkerReportsOutcomesThatFinishTogetherInFewerCallsThanTasks(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace := uniqueNamespace("wk")
	const tasks = 20
	ids := readyTasks(t, client, namespace, tasks)
	var arrived sync.WaitGroup
	arrived.Add(tasks)
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error {
		arrived.Done()
		arrived.Wait() // all finish at once
		return nil
	}, func(o *tasklife.WorkerOptions) { o.Concurrency = tasks })

	eventually(t, "every completion", func() bool { return w.Metrics().Completed == tasks })
	if calls := w.Metrics().ReportCalls; calls >= tasks {
		t.Fatalf("%d report calls for %d outcomes that finished together: not batched", calls, tasks)
	}
	for _, id := range ids {
		ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_COMPLETE)
	}
}

func TestWorkerRunReturnsTheRefusalOfAClaimNoRetryCanFix(t *testing.T) {
	t.Parallel()
	client := connect(t)
	w := startWorker(t, client, "Not_A_Namespace", func(context.Context, *pb.Task) error { return nil })
	var refused *tasklife.Error
	if err := w.awaitRun(t); !errors.As(err, &refused) || refused.Reason != tasklife.ReasonInvalidRequest {
		t.Fatalf("Run returned %v, want the INVALID_REQUEST refusal of the claim", err)
	}
}

func TestNewWorkerRefusesAHeartbeatIntervalNotShorterThanTheLease(t *testing.T) {
	client, err := tasklife.Connect("127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	_, err = tasklife.NewWorker(client, func(context.Context, *pb.Task) error { return nil },
		tasklife.WorkerOptions{LeaseDuration: time.Second, HeartbeatInterval: time.Second})
	if err == nil || !strings.Contains(err.Error(), "HeartbeatInterval") {
		t.Fatalf("NewWorker: %v, want an error naming HeartbeatInterval", err)
	}
}
