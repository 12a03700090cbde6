package tasklife_test

// The scenario's `worker` op: the Worker runtime (not the raw stub) claims the step's tasks
// and runs a handler that follows the step's script, failing with a *tasklife.Failure or
// returning a result, until every task is in its state.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

const (
	workerStepTimeout   = 20 * time.Second // the README's bound
	workerStepClaimWait = 500 * time.Millisecond
	workerStepPoll      = 50 * time.Millisecond
)

// worker runs the step. Its worker configures no operator, so its moves name the worker as
// their operator; the lease is the default one.
func (r *scenarioRun) worker(t *testing.T, step scenarioStep) {
	script, err := newHandlerScript(step.Handle)
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	worker, err := tasklife.NewResultWorker(r.client, script.handle, tasklife.WorkerOptions{
		Name:      step.Worker,
		Labels:    step.Labels,
		ClaimWait: workerStepClaimWait,
		Logger:    slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		t.Fatalf("NewResultWorker: %v", err)
	}
	defer func() {
		if t.Failed() {
			t.Logf("worker log:\n%s", logs.String())
		}
	}()
	ran := make(chan error, 1)
	go func() { ran <- worker.Run(context.Background()) }()

	ctx, cancel := context.WithTimeout(context.Background(), workerStepTimeout)
	defer cancel()
	reached := awaitStates(ctx, r.client, step.Until)
	worker.Stop()
	select {
	case err := <-ran:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-ctx.Done():
		t.Errorf("the worker did not stop within %s", workerStepTimeout)
	}
	if reached != nil {
		t.Fatal(reached)
	}
	for _, problem := range script.check() {
		t.Error(problem)
	}
}

// awaitStates polls GetTask until every task is in its state (by name), or ctx ends.
func awaitStates(ctx context.Context, client *tasklife.Client, until map[string]string) error {
	for {
		pending := ""
		for id, want := range until {
			resp, err := client.GetTask(ctx, &pb.GetTaskRequest{TaskId: id, View: pb.TaskView_TASK_VIEW_BASIC})
			if err != nil {
				return fmt.Errorf("GetTask %s: %w", id, err)
			}
			if got := resp.GetTask().GetState().String(); got != want {
				pending = fmt.Sprintf("task %s is %s, want %s", id, got, want)
				break
			}
		}
		if pending == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("after %s: %s", workerStepTimeout, pending)
		case <-time.After(workerStepPoll):
		}
	}
}

// scriptedCall is one handler call of the script, parsed.
type scriptedCall struct {
	input   *pb.TaskPayload   // nil: not checked
	failure *tasklife.Failure // nil: complete
	result  *pb.TaskPayload
}

// handlerScript is the step's handler: the n-th call for a task follows the n-th entry of
// its list. Calls are counted and problems kept for check, after the worker stopped.
type handlerScript struct {
	mu       sync.Mutex
	calls    map[string][]scriptedCall
	made     map[string]int
	problems []string
}

func newHandlerScript(handle map[string][]handlerEntry) (*handlerScript, error) {
	script := &handlerScript{calls: map[string][]scriptedCall{}, made: map[string]int{}}
	for id, entries := range handle {
		for i, entry := range entries {
			call, err := parseEntry(entry)
			if err != nil {
				return nil, fmt.Errorf("handle[%s][%d]: %w", id, i, err)
			}
			script.calls[id] = append(script.calls[id], call)
		}
	}
	return script, nil
}

func parseEntry(entry handlerEntry) (scriptedCall, error) {
	var call scriptedCall
	if entry.ExpectInput != nil {
		call.input = &pb.TaskPayload{}
		if err := protojson.Unmarshal(entry.ExpectInput, call.input); err != nil {
			return call, fmt.Errorf("expect_input: %w", err)
		}
	}
	switch {
	case (entry.Fail == nil) == (entry.Complete == nil):
		return call, errors.New("want exactly one of fail and complete")
	case entry.Fail != nil:
		call.failure = &tasklife.Failure{Type: entry.Fail.ErrorType, Message: entry.Fail.Message,
			ExitCode: entry.Fail.ExitCode, NonRetryable: entry.Fail.NonRetryable}
	default:
		call.result = &pb.TaskPayload{}
		if err := protojson.Unmarshal(entry.Complete.Result, call.result); err != nil {
			return call, fmt.Errorf("complete.result: %w", err)
		}
	}
	return call, nil
}

func (s *handlerScript) handle(_ context.Context, task *pb.Task) (*pb.TaskPayload, error) {
	call, err := s.next(task)
	if err != nil {
		return nil, &tasklife.Failure{Type: "ScriptViolated", NonRetryable: true, Err: err}
	}
	if call.failure != nil {
		return nil, call.failure
	}
	return call.result, nil
}

// next is the entry for this call of the task's handler, or an error (also kept as a
// problem) when the script has none or the input differs.
func (s *handlerScript) next(task *pb.Task) (scriptedCall, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, n := task.GetTaskId(), s.made[task.GetTaskId()]
	s.made[id]++
	var err error
	switch {
	case n >= len(s.calls[id]):
		err = fmt.Errorf("task %s: call %d, but the script has %d", id, n+1, len(s.calls[id]))
	case s.calls[id][n].input != nil && !proto.Equal(task.GetInput(), s.calls[id][n].input):
		err = fmt.Errorf("task %s call %d: input %v, want %v", id, n+1, task.GetInput(), s.calls[id][n].input)
	default:
		return s.calls[id][n], nil
	}
	s.problems = append(s.problems, err.Error())
	return scriptedCall{}, err
}

// check lists every problem: script violations, and tasks whose handler was called fewer
// times than their list has entries.
func (s *handlerScript) check() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	problems := append([]string(nil), s.problems...)
	for id, calls := range s.calls {
		if s.made[id] < len(calls) {
			problems = append(problems, fmt.Sprintf("task %s: the handler was called %d times, want %d", id, s.made[id], len(calls)))
		}
	}
	return problems
}

// cooperativeKill runs the step: the Worker claims the task and its handler blocks until its
// context is cancelled; once it runs, KillTask with a grace period; the Worker must cancel the
// context (cause ErrKillRequested) and confirm, so that the task is KILLED.
func (r *scenarioRun) cooperativeKill(t *testing.T, step scenarioStep) {
	kill := &pb.KillTaskRequest{}
	if err := protojson.Unmarshal(step.Kill, kill); err != nil {
		t.Fatalf("kill is not a KillTaskRequest: %v", err)
	}
	var calls atomic.Int32
	started := make(chan struct{}, 1)
	cause := make(chan error, 1)
	handler := func(ctx context.Context, task *pb.Task) error {
		calls.Add(1)
		started <- struct{}{}
		<-ctx.Done()
		cause <- context.Cause(ctx)
		return ctx.Err()
	}
	logs := &logBuffer{}
	worker, err := tasklife.NewWorker(r.client, handler, tasklife.WorkerOptions{
		Name:          step.Worker,
		Labels:        step.Labels,
		ClaimWait:     workerStepClaimWait,
		LeaseDuration: time.Duration(step.LeaseSeconds) * time.Second,
		Logger:        slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		t.Fatalf("NewWorker: %v", err)
	}
	defer func() {
		if t.Failed() {
			t.Logf("worker log:\n%s", logs.String())
		}
	}()
	ran := make(chan error, 1)
	go func() { ran <- worker.Run(context.Background()) }()
	defer func() {
		worker.Stop()
		if err := <-ran; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), workerStepTimeout)
	defer cancel()
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the handler did not start")
	}
	if _, err := r.client.KillTask(ctx, kill); err != nil {
		t.Fatalf("KillTask: %v", err)
	}
	if err := awaitStates(ctx, r.client, map[string]string{step.TaskID: "TASK_STATE_KILLED"}); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-cause:
		if !errors.Is(got, tasklife.ErrKillRequested) {
			t.Errorf("the handler's context was cancelled by %v, want ErrKillRequested", got)
		}
	default:
		t.Error("the task is KILLED but the handler's context was never cancelled")
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the handler ran %d times, want 1", n)
	}
}
