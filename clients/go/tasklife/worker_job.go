package tasklife

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// job is one claimed task inside the worker. Its outcome is decided exactly once (settle),
// by whichever comes first: the handler returning, the lease being lost, or the grace
// period of a stop passing. Its slot is freed when the handler returns; the job is
// released (its heartbeats end) once, besides, the outcome is resolved (reported, refused,
// or dropped).
type job struct {
	task      *pb.Task
	claimSent time.Time // the lease started after this: the safe base for expiry
	ctx       context.Context
	cancel    context.CancelCauseFunc
	released  chan struct{} // closed when the job is released: heartbeats end

	settleOnce sync.Once
	holds      int         // the handler's return and the outcome's resolution; guarded by Worker.mu
	killAsked  atomic.Bool // a heartbeat said kill_requested: the handler's context is cancelled
}

func newJob(background context.Context, task *pb.Task, claimSent time.Time) *job {
	ctx, cancel := context.WithCancelCause(background)
	return &job{task: task, claimSent: claimSent, ctx: ctx, cancel: cancel, released: make(chan struct{}), holds: 2}
}

// settle reports whether the caller is the one deciding the job's outcome.
func (j *job) settle() bool {
	first := false
	j.settleOnce.Do(func() { first = true })
	return first
}

// runHandler runs the handler and decides the outcome from it unless something else
// (a lost lease, a stop's grace period) decided it first.
func (w *Worker) runHandler(j *job) {
	defer w.handlerReturned(j)
	w.counters.running.Add(1)
	result, err := w.callHandler(j)
	w.counters.running.Add(-1)
	if !j.settle() {
		return
	}
	j.cancel(nil)
	if j.killAsked.Load() {
		w.decide(w.killConfirmation(j))
		return
	}
	if err == nil {
		w.decide(w.completion(j, result))
		return
	}
	failure := DescribeFailure(err)
	w.logHandlerFailure(j, failure)
	w.decide(w.failure(j, failure, failureReason(failure)))
}

// callHandler runs the handler, turning a panic into an error that keeps its stack.
func (w *Worker) callHandler(j *job) (result *pb.TaskPayload, err error) {
	defer func() {
		if value := recover(); value != nil {
			err = &handlerPanic{value: value, stack: string(debug.Stack())}
		}
	}()
	return w.handler(j.ctx, j.task)
}

// logHandlerFailure says, in one line, which attempt of which task failed and how; a
// panic's line carries its stack.
func (w *Worker) logHandlerFailure(j *job, failure *pb.TaskFailure) {
	message := fmt.Sprintf("task %s attempt %d: handler failed: %s", j.task.GetTaskId(), j.task.GetAttempt(), failureReason(failure))
	attributes := []any{"task_id", j.task.GetTaskId(), "attempt", j.task.GetAttempt(),
		"error_type", failure.GetErrorType(), "message", failure.GetMessage()}
	if failure.GetErrorType() == PanicErrorType {
		w.log.Error(message, append(attributes, "stack", failure.GetStackTrace())...)
		return
	}
	w.log.Warn(message, attributes...)
}

// keepLeaseAlive renews the job's lease every heartbeat interval until its slot is freed.
// A LEASE_LOST or NOT_FOUND answer, or no renewal for a whole lease, loses the task.
func (w *Worker) keepLeaseAlive(j *job) {
	ticker := time.NewTicker(w.opts.HeartbeatInterval)
	defer ticker.Stop()
	renewed := j.claimSent
	req := &pb.HeartbeatRequest{TaskId: j.task.GetTaskId(), Worker: w.opts.Name, LeaseDuration: durationpb.New(w.opts.LeaseDuration)}
	for {
		select {
		case <-j.released:
			return
		case <-w.done:
			return
		case <-ticker.C:
		}
		expires := renewed.Add(w.opts.LeaseDuration)
		if !time.Now().Before(expires) {
			w.loseLease(j, fmt.Errorf("%w: no heartbeat succeeded within the lease of %s", ErrLeaseLost, w.opts.LeaseDuration))
			return
		}
		ctx, cancel := context.WithDeadline(w.background, expires)
		sent := time.Now()
		answer, err := w.client.Heartbeat(ctx, req)
		cancel()
		unreachable := w.server.note(err) // an outage is logged once, not once per task and beat
		switch {
		case err == nil:
			renewed = sent
			// Heartbeats go on while the handler stops: the kill, not the lease, ends the task.
			if answer.GetKillRequested() && j.killAsked.CompareAndSwap(false, true) {
				w.log.Info(fmt.Sprintf("task %s: kill requested: cancelling the handler", j.task.GetTaskId()))
				j.cancel(ErrKillRequested)
			}
		case takenAway(err):
			w.loseLease(j, fmt.Errorf("%w: %w", ErrLeaseLost, err))
			return
		default:
			w.counters.heartbeatFailures.Add(1)
			if !unreachable {
				w.log.Warn(fmt.Sprintf("task %s: heartbeat failed, retried at the next beat", j.task.GetTaskId()), "error", err)
			}
			if w.opts.Hooks.HeartbeatFailed != nil {
				w.opts.Hooks.HeartbeatFailed(j.task, err)
			}
		}
	}
}

// loseLease drops the job: its handler is cancelled and its result never reported. If the
// outcome was already decided, the report finds out on its own (LEASE_LOST).
func (w *Worker) loseLease(j *job, why error) {
	if !j.settle() {
		return
	}
	j.cancel(why)
	w.drop(j, why, "handler cancelled, result dropped")
	w.unsettled.Done()
	w.dropped(j)
}

// drop counts and logs a task taken away from the worker.
func (w *Worker) drop(j *job, why error, consequence string) {
	w.counters.dropped.Add(1)
	w.log.Warn(fmt.Sprintf("task %s: %s: %s", j.task.GetTaskId(), describeTakenAway(why), consequence))
	if w.opts.Hooks.Dropped != nil {
		w.opts.Hooks.Dropped(j.task, why)
	}
}

// takenAway: the server says the worker no longer holds the task, so its result must not
// (or cannot) be recorded.
func takenAway(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	return e.Reason == ReasonLeaseLost || e.Reason == ReasonInvalidTransition || e.Code == codes.NotFound
}

// describeTakenAway says in a few words why a task was taken away.
func describeTakenAway(why error) string {
	var e *Error
	if !errors.As(why, &e) {
		return why.Error()
	}
	state := strings.TrimPrefix(e.Metadata["current_state"], "TASK_STATE_")
	switch {
	case e.Reason == ReasonLeaseLost:
		return fmt.Sprintf("lease lost (state %s, holder '%s')", state, e.Metadata["lease_holder"])
	case e.Reason == ReasonInvalidTransition:
		return fmt.Sprintf("no longer running (state %s)", state)
	default:
		return fmt.Sprintf("task gone (%s)", e.Code)
	}
}

// outcome is one decided result waiting for the reporter.
type outcome struct {
	job     *job
	item    *pb.BatchTransitionTasksItem
	size    int    // of item, encoded: what it adds to a report call
	reason  string // the FailTask or KillTask reason; "" for a completion
	killing bool   // the item is a KillTask confirming a kill asked with a grace period
	// instead is what to report when the server refuses item as invalid (INVALID_ARGUMENT),
	// so that the task does not stay running until its lease expires; nil: nothing.
	instead func(refusal error) *outcome
}

func newOutcome(j *job, item *pb.BatchTransitionTasksItem, reason string) *outcome {
	return &outcome{job: j, item: item, size: proto.Size(item), reason: reason}
}

// completion reports the task succeeded, with the handler's result if it returned one; a
// result the server refuses fails the task instead.
func (w *Worker) completion(j *job, result *pb.TaskPayload) *outcome {
	o := newOutcome(j, TransitionItem(&pb.CompleteTaskRequest{
		TaskId: j.task.GetTaskId(), Worker: w.opts.Name, Operator: w.operator, Result: result,
		RequestId: outcomeRequestID(w.opts.Name, j.task, "complete"),
	}), "")
	o.instead = func(refusal error) *outcome {
		failure := &pb.TaskFailure{ErrorType: InvalidResultErrorType, Message: fitText(refusalMessage(refusal), maxFailureMessage), NonRetryable: true}
		w.log.Error(fmt.Sprintf("task %s attempt %d: the server refused the handler's result: failing the task", j.task.GetTaskId(), j.task.GetAttempt()),
			"task_id", j.task.GetTaskId(), "attempt", j.task.GetAttempt(), "error_type", InvalidResultErrorType, "message", failure.GetMessage())
		return w.failure(j, failure, failureReason(failure))
	}
	return o
}

// killConfirmation confirms a kill asked with a grace period, once the handler returned.
func (w *Worker) killConfirmation(j *job) *outcome {
	reason := fmt.Sprintf("worker %s: handler cancelled on the kill request", w.opts.Name)
	o := newOutcome(j, TransitionItem(&pb.KillTaskRequest{
		TaskId: j.task.GetTaskId(), Operator: w.operator, Reason: reason,
		RequestId: outcomeRequestID(w.opts.Name, j.task, "kill"),
	}), reason)
	o.killing = true
	return o
}

// failure reports the task failed. Should the server refuse the failure's details (too
// large, a bad content type), it is reported again without them.
func (w *Worker) failure(j *job, failure *pb.TaskFailure, reason string) *outcome {
	o := newOutcome(j, TransitionItem(&pb.FailTaskRequest{
		TaskId: j.task.GetTaskId(), Worker: w.opts.Name, Operator: w.operator, Reason: reason, Failure: failure,
		RequestId: outcomeRequestID(w.opts.Name, j.task, "fail"),
	}), reason)
	if failure.GetDetails() != nil {
		o.instead = func(refusal error) *outcome {
			w.log.Warn(fmt.Sprintf("task %s attempt %d: the server refused the failure's details: reporting it without them", j.task.GetTaskId(), j.task.GetAttempt()),
				"error", refusal)
			without := proto.CloneOf(failure)
			without.Details = nil
			return w.failure(j, without, reason)
		}
	}
	return o
}

// refusalMessage is what the server said, without the client's "tasklife: ..." framing.
func refusalMessage(refusal error) string {
	var e *Error
	if errors.As(refusal, &e) {
		return e.Message
	}
	return refusal.Error()
}

// outcomeRequestID is the stable request_id of an outcome report,
// "<worker>:<task_id>:<attempt>:complete|fail", so that a retried report never records
// twice. When that is not a valid request_id (over 128 characters, or a worker name with
// characters a request_id cannot hold) it is replaced by "<sha-256 of it, hex>:<action>".
func outcomeRequestID(worker string, task *pb.Task, action string) string {
	id := fmt.Sprintf("%s:%s:%d:%s", worker, task.GetTaskId(), task.GetAttempt(), action)
	if validRequestID(id) {
		return id
	}
	digest := sha256.Sum256([]byte(id))
	return hex.EncodeToString(digest[:]) + ":" + action
}

// validRequestID: up to 128 characters of letters, digits and . _ ~ : - (the server's rule).
func validRequestID(id string) bool {
	if len(id) > 128 {
		return false
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._~:-", r)
		if !ok {
			return false
		}
	}
	return true
}
