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
	"time"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/durationpb"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// maxFailureReason bounds the reason of a FailTask the worker sends, in UTF-8 bytes.
const maxFailureReason = 1024

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
	holds      int // the handler's return and the outcome's resolution; guarded by Worker.mu
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
	err := w.callHandler(j)
	w.counters.running.Add(-1)
	if !j.settle() {
		return
	}
	j.cancel(nil)
	if err == nil {
		w.decide(completion(w.opts.Name, j))
		return
	}
	w.decide(failure(w.opts.Name, j, failureReason(err)))
}

// callHandler runs the handler, turning a panic into an error.
func (w *Worker) callHandler(j *job) (err error) {
	defer func() {
		if value := recover(); value != nil {
			w.log.Error(fmt.Sprintf("task %s: handler panicked: %v", j.task.GetTaskId(), value), "stack", string(debug.Stack()))
			err = &handlerPanic{value: value}
		}
	}()
	return w.handler(j.ctx, j.task)
}

// handlerPanic is a recovered panic of a handler.
type handlerPanic struct{ value any }

func (p *handlerPanic) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// failureReason is the FailTask reason for a handler's error: its type and message
// ("panic: <value>" for a panic), at most maxFailureReason bytes.
func failureReason(err error) string {
	var p *handlerPanic
	if errors.As(err, &p) {
		return truncateUTF8(p.Error(), maxFailureReason)
	}
	return truncateUTF8(fmt.Sprintf("%T: %v", err, err), maxFailureReason)
}

// truncateUTF8 cuts s to at most n bytes without splitting a character. Bytes that are not
// UTF-8 become U+FFFD first: a protobuf string must be valid UTF-8.
func truncateUTF8(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
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
		_, err := w.client.Heartbeat(ctx, req)
		cancel()
		switch {
		case err == nil:
			renewed = sent
		case takenAway(err):
			w.loseLease(j, fmt.Errorf("%w: %w", ErrLeaseLost, err))
			return
		default:
			w.counters.heartbeatFailures.Add(1)
			w.log.Warn(fmt.Sprintf("task %s: heartbeat failed, retried at the next beat", j.task.GetTaskId()), "error", err)
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
	job    *job
	item   *pb.BatchTransitionTasksItem
	reason string // the FailTask reason; "" for a completion
}

func completion(worker string, j *job) *outcome {
	return &outcome{job: j, item: TransitionItem(&pb.CompleteTaskRequest{
		TaskId: j.task.GetTaskId(), Worker: worker, RequestId: outcomeRequestID(worker, j.task, "complete"),
	})}
}

func failure(worker string, j *job, reason string) *outcome {
	return &outcome{job: j, reason: reason, item: TransitionItem(&pb.FailTaskRequest{
		TaskId: j.task.GetTaskId(), Worker: worker, Reason: reason, RequestId: outcomeRequestID(worker, j.task, "fail"),
	})}
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
