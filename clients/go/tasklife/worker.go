package tasklife

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/durationpb"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// A Handler runs one claimed task: task is the task as the claim left it, RUNNING, with its
// input (task.GetInput()). Returning nil completes the task; returning an error (or
// panicking) fails it, recorded as [DescribeFailure] says: return a [*Failure] to give its
// type, an exit code, or to keep it from being retried. ctx is cancelled when the task is
// taken away from the worker (lease lost, killed or paused by an operator, gone:
// context.Cause is then an [ErrLeaseLost]) or when a stop's grace period passes
// ([ErrWorkerStopping]); the outcome of a cancelled handler is never reported.
//
// A handler that produces a result is a [ResultHandler].
type Handler func(ctx context.Context, task *pb.Task) error

// A ResultHandler is a [Handler] that returns the task's result with its success: a
// non-nil payload is reported as CompleteTaskRequest.Result and kept as Task.Result (build
// it with [BytesPayload], [TextPayload] or [JSONPayload]); nil completes the task without
// one. With an error the result is ignored and the task fails, as for a Handler. A result
// the server refuses (over its --max-payload-bytes, a bad content type) fails the task,
// non-retryable, with error_type [InvalidResultErrorType]. Run it with [NewResultWorker].
type ResultHandler func(ctx context.Context, task *pb.Task) (*pb.TaskPayload, error)

// withoutResult runs a Handler as a ResultHandler that never has a result.
func (h Handler) withoutResult() ResultHandler {
	return func(ctx context.Context, task *pb.Task) (*pb.TaskPayload, error) {
		return nil, h(ctx, task)
	}
}

var (
	// ErrLeaseLost is the cause of a handler's context cancelled because the worker no
	// longer holds the task: a heartbeat answered LEASE_LOST or NOT_FOUND, or no heartbeat
	// succeeded for a whole lease. errors.As on the cause also finds the server's [*Error].
	ErrLeaseLost = errors.New("tasklife: lease lost")
	// ErrWorkerStopping is the cause of a handler's context cancelled because the worker
	// stopped and the grace period passed; the task is failed with a reason saying so.
	ErrWorkerStopping = errors.New("tasklife: worker stopping: grace period passed")
	// ErrKillRequested is the cause of a handler's context cancelled because a kill with a
	// grace period was asked (HeartbeatResponse.kill_requested); once the handler returns
	// the worker confirms the kill with KillTask, whatever it returned.
	ErrKillRequested = errors.New("tasklife: kill requested")
)

// Worker claims tasks with ClaimTasks, runs a [Handler] on each (at most
// WorkerOptions.Concurrency at once), keeps their leases alive with heartbeats, and
// reports the outcomes in batches with BatchTransitionTasks. Make one with [NewWorker],
// then call [Worker.Run]; stop it by cancelling Run's context or with [Worker.Stop].
type Worker struct {
	client   *Client
	handler  ResultHandler
	opts     WorkerOptions
	operator string // the operator of every move the worker makes; "": none sent
	log      *slog.Logger
	counters workerCounters
	server   *reachability

	started  atomic.Bool
	stopOnce sync.Once
	stopped  chan struct{} // closed by Stop
	done     chan struct{} // closed as Run returns: ends every heartbeat

	// background carries Run's context values without its cancellation: handlers,
	// heartbeats and reports outlive the stop request by design.
	background context.Context

	mu       sync.Mutex
	jobs     map[*job]struct{} // claimed and not yet released: the leases the worker holds
	handling int               // jobs whose handler has not returned: the slots taken
	decided  int               // outcomes handed to the reporter so far
	answered int               // of those, the ones whose report was answered or given up
	changed  chan struct{}     // capacity 1: wakes the claim loop when a count above drops

	earlyEmptyClaims int // consecutive empty claims answered before half the wait; claim loop only

	unsettled sync.WaitGroup // jobs whose outcome is not decided yet
	outcomes  chan *outcome  // decided outcomes, to the reporter; capacity maxHeld
}

// NewWorker makes a worker that runs handler on tasks claimed through client. It checks
// opts (zero fields take their defaults) and returns an error naming a bad one.
func NewWorker(client *Client, handler Handler, opts WorkerOptions) (*Worker, error) {
	if handler == nil {
		return nil, errors.New("tasklife: NewWorker needs a client and a handler")
	}
	return newWorker(client, handler.withoutResult(), opts)
}

// NewResultWorker is [NewWorker] for a handler that returns the task's result.
func NewResultWorker(client *Client, handler ResultHandler, opts WorkerOptions) (*Worker, error) {
	if handler == nil {
		return nil, errors.New("tasklife: NewResultWorker needs a client and a handler")
	}
	return newWorker(client, handler, opts)
}

func newWorker(client *Client, handler ResultHandler, opts WorkerOptions) (*Worker, error) {
	if client == nil {
		return nil, errors.New("tasklife: a worker needs a client")
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	log := opts.Logger.With("worker", opts.Name)
	return &Worker{
		client:   client,
		handler:  handler,
		opts:     opts,
		operator: workerOperator(client, opts),
		log:      log,
		server:   &reachability{log: log, address: client.conn.Target()},
		stopped:  make(chan struct{}),
		done:     make(chan struct{}),
		jobs:     map[*job]struct{}{},
		changed:  make(chan struct{}, 1),
		outcomes: make(chan *outcome, maxHeld(opts.Concurrency)),
	}, nil
}

// Name is the worker name recorded on the tasks it runs.
func (w *Worker) Name() string { return w.opts.Name }

// Metrics is a snapshot of the worker's counters and running gauge.
func (w *Worker) Metrics() WorkerMetrics { return w.counters.snapshot() }

// Stop asks a running worker to stop gracefully, as cancelling Run's context does, and
// returns at once; Run returns when the stop is done. Calling it again does nothing.
func (w *Worker) Stop() { w.stopOnce.Do(func() { close(w.stopped) }) }

// Run works until ctx is cancelled or [Worker.Stop] is called, then stops gracefully: it
// claims nothing more, gives the handlers in flight GracePeriod to finish and reports
// their outcomes, cancels the others (cause [ErrWorkerStopping]) and fails their tasks
// with the reason "worker <name> stopping: grace period of <X>s passed", sends the last
// reports, and returns nil. When ClaimTasks is refused for good (INVALID_ARGUMENT,
// UNAUTHENTICATED, PERMISSION_DENIED: a bad namespace, say) it stops the same way and
// returns that error. Run may be called once.
//
// For SIGTERM, pass a context from signal.NotifyContext.
func (w *Worker) Run(ctx context.Context) error {
	if !w.started.CompareAndSwap(false, true) {
		return errors.New("tasklife: Worker.Run called more than once")
	}
	w.background = context.WithoutCancel(ctx)
	claimCtx, stopClaiming := context.WithCancel(ctx)
	defer stopClaiming()
	go func() {
		select {
		case <-w.stopped:
		case <-claimCtx.Done():
		}
		stopClaiming()
	}()
	reportCtx, giveUpReports := context.WithCancel(w.background)
	defer giveUpReports()
	reporterDone := make(chan struct{})
	go func() {
		defer close(reporterDone)
		w.reportOutcomes(reportCtx)
	}()

	refusal := w.claimLoop(claimCtx)
	stopClaiming()
	w.log.Info("worker stopping: no more claims", "in_flight", w.inFlight(), "grace_period", w.opts.GracePeriod)
	w.awaitOutcomes(w.opts.GracePeriod)
	close(w.outcomes) // every job is settled: nothing more is sent
	// Reports still undelivered a lease (at least minReportFlush) after the grace period are
	// given up: the server fails those tasks when their leases expire.
	giveUp := time.AfterFunc(max(w.opts.LeaseDuration, minReportFlush), giveUpReports)
	<-reporterDone
	giveUp.Stop()
	close(w.done)
	w.log.Info("worker stopped", "metrics", fmt.Sprintf("%+v", w.Metrics()))
	return refusal
}

// claimLoop claims while ctx lasts and slots are free; it returns a refusal for good.
func (w *Worker) claimLoop(ctx context.Context) error {
	for {
		n, ok := w.awaitClaim(ctx)
		if !ok {
			return nil
		}
		if err := w.claim(ctx, n); err != nil {
			return err
		}
	}
}

// maxHeld is the most tasks a worker holds: a slot frees when its handler returns, so
// besides the Concurrency handlers running, up to Concurrency outcomes await their report.
func maxHeld(concurrency int) int { return 2 * concurrency }

func (w *Worker) inFlight() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.jobs)
}

// awaitClaim waits until the next claim is due and returns how many tasks it asks for, or
// false when ctx ends first. A slot is free once its handler has returned, so a claim
// overlaps the report of the outcomes before it; but the worker holds at most maxHeld
// tasks, so the claim asks for fewer when more than Concurrency outcomes await their report.
//
// A claim costs a round trip whatever it asks for, and handlers started together tend to
// return together, a few microseconds apart: a claim sent when the first one returns would
// ask for one task, and the rounds would stay split from then on. So a claim is sent at
// once only for a whole round (no handler running, at most Concurrency outcomes awaiting
// their report); a smaller one waits until it grows to a whole round or the outcomes
// decided when its first slot freed have been reported: a report's round trip or two.
func (w *Worker) awaitClaim(ctx context.Context) (int, bool) {
	decidedWhenFree := -1
	for {
		if ctx.Err() != nil {
			return 0, false
		}
		w.mu.Lock()
		n := min(w.opts.Concurrency-w.handling, maxHeld(w.opts.Concurrency)-len(w.jobs))
		if n > 0 && decidedWhenFree < 0 {
			decidedWhenFree = w.decided
		}
		due := n == w.opts.Concurrency || n > 0 && w.answered >= decidedWhenFree
		w.mu.Unlock()
		if due {
			return n, true
		}
		select {
		case <-w.changed:
		case <-ctx.Done():
			return 0, false
		}
	}
}

// wake tells the claim loop that a slot, a lease or a report may have freed up.
func (w *Worker) wake() {
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// claim makes one logical claim of up to n tasks and starts them, retrying with the
// same request_id after an error, so that a claim whose answer was lost is answered again
// with the tasks it took instead of stranding them. It returns only a refusal for good;
// a stop (ctx ending) ends it quietly.
//
// A claim cancelled by a stop while in flight is not repeated: if the server had already
// claimed tasks for it, they come back through lease expiry.
func (w *Worker) claim(ctx context.Context, n int) error {
	req := &pb.ClaimTasksRequest{
		Worker:        w.opts.Name,
		LeaseDuration: durationpb.New(w.opts.LeaseDuration),
		MaxTasks:      int32(n),
		Namespace:     w.opts.Namespace,
		Labels:        w.opts.Labels,
		Wait:          durationpb.New(w.opts.ClaimWait),
		RequestId:     newClaimRequestID(),
		Operator:      w.operator,
	}
	for attempt := 0; ; attempt++ {
		sent := time.Now()
		resp, err := w.client.ClaimTasks(ctx, req)
		unreachable := w.server.note(err)
		if err == nil {
			w.start(resp.GetClaims(), sent)
			w.paceEmptyClaims(ctx, len(resp.GetClaims()), time.Since(sent))
			return nil
		}
		if ctx.Err() != nil {
			return nil
		}
		if claimRefusedForGood(err) {
			w.log.Error("claim refused: the worker stops", "error", err)
			return err
		}
		if !unreachable {
			w.log.Warn("claim failed: retrying with the same request_id", "error", err, "attempt", attempt+1)
		}
		if !sleep(ctx, w.backoff(attempt)) {
			return nil
		}
	}
}

// paceEmptyClaims backs off after empty answers that came back well before the wait was
// over (a server that does not long-poll, or lost races for each woken task), so that the
// claim loop never spins; a long poll that ran its course, or any claimed task, resets it.
func (w *Worker) paceEmptyClaims(ctx context.Context, claimed int, took time.Duration) {
	if claimed > 0 || took >= w.opts.ClaimWait/2 {
		w.earlyEmptyClaims = 0
		return
	}
	sleep(ctx, w.backoff(w.earlyEmptyClaims))
	w.earlyEmptyClaims++
}

// claimRefusedForGood: errors no retry can fix, which end Run.
func claimRefusedForGood(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case codes.InvalidArgument, codes.Unauthenticated, codes.PermissionDenied:
		return true
	}
	return false
}

// start registers claimed tasks and runs each one's handler and heartbeats.
func (w *Worker) start(claims []*pb.StartTaskResponse, claimSent time.Time) {
	jobs := make([]*job, len(claims))
	for i, claim := range claims {
		jobs[i] = newJob(w.background, claim.GetTask(), claimSent)
	}
	w.mu.Lock()
	for _, j := range jobs {
		w.jobs[j] = struct{}{}
	}
	w.handling += len(jobs)
	w.mu.Unlock()
	for _, j := range jobs {
		w.unsettled.Add(1)
		w.counters.claimed.Add(1)
		if w.opts.Hooks.Claimed != nil {
			w.opts.Hooks.Claimed(j.task)
		}
		go w.runHandler(j)
		go w.keepLeaseAlive(j)
	}
}

// handlerReturned frees the job's slot; its outcome, if the handler decided it, is with
// the reporter by now.
func (w *Worker) handlerReturned(j *job) {
	w.mu.Lock()
	w.handling--
	w.letGo(j)
	w.mu.Unlock()
	w.wake()
}

// reported accounts for a batch whose report was answered or given up: its leases are no
// longer needed.
func (w *Worker) reported(batch []*outcome) {
	w.mu.Lock()
	w.answered += len(batch)
	for _, o := range batch {
		w.letGo(o.job)
	}
	w.mu.Unlock()
	w.wake()
}

// dropped lets go of a job taken away from the worker: there is nothing to report.
func (w *Worker) dropped(j *job) {
	w.mu.Lock()
	w.letGo(j)
	w.mu.Unlock()
	w.wake()
}

// letGo gives up one of the job's two holds (its handler's return, its outcome's
// resolution); the last one releases the job, which ends its heartbeats. w.mu is held.
func (w *Worker) letGo(j *job) {
	if j.holds--; j.holds == 0 {
		delete(w.jobs, j)
		close(j.released)
	}
}

// awaitOutcomes waits up to grace for every job's outcome to be decided, then decides the
// rest: their handlers are cancelled and their tasks failed.
func (w *Worker) awaitOutcomes(grace time.Duration) {
	settled := make(chan struct{})
	go func() {
		w.unsettled.Wait()
		close(settled)
	}()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-settled:
		return
	case <-timer.C:
	}
	reason := fmt.Sprintf("worker %s stopping: grace period of %ss passed", w.opts.Name,
		strconv.FormatFloat(grace.Seconds(), 'f', -1, 64))
	w.mu.Lock()
	late := make([]*job, 0, len(w.jobs))
	for j := range w.jobs {
		late = append(late, j)
	}
	w.mu.Unlock()
	for _, j := range late {
		if j.settle() {
			j.cancel(ErrWorkerStopping)
			w.log.Warn(fmt.Sprintf("task %s: %s: handler cancelled, task failed", j.task.GetTaskId(), reason))
			w.decide(w.failure(j, &pb.TaskFailure{ErrorType: WorkerStoppingErrorType, Message: reason}, reason))
		}
	}
	<-settled
}

// decide hands a settled job's outcome to the reporter.
func (w *Worker) decide(o *outcome) {
	w.mu.Lock()
	w.decided++
	w.mu.Unlock()
	w.outcomes <- o // never blocks: at most maxHeld jobs, one outcome each
	w.unsettled.Done()
}

// backoff is the full-jitter delay before retry n (from 0).
func (w *Worker) backoff(n int) time.Duration {
	ceiling := w.opts.Backoff.Initial << min(n, 30)
	if ceiling <= 0 || ceiling > w.opts.Backoff.Max {
		ceiling = w.opts.Backoff.Max
	}
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling)
}

// sleep waits d, or returns false as soon as ctx ends.
func sleep(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// newClaimRequestID is a fresh request_id for one logical claim.
func newClaimRequestID() string {
	random := make([]byte, 12)
	_, _ = crand.Read(random)
	return "claim-" + hex.EncodeToString(random)
}
