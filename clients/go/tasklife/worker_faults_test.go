package tasklife_test

// The Worker under transient failures and slow calls. An interceptor on the worker's
// connection makes calls fail with UNAVAILABLE, either before they reach the (real) server
// or after the server has answered, as a dropped connection would lose the answer, or holds
// them back until the test lets them go, as a slow server would.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

type fault int

const (
	// refuse fails every call of the method with UNAVAILABLE; the server never sees it.
	refuse fault = iota + 1
	// loseFirstAnswer lets the first call reach the server, then fails it with
	// UNAVAILABLE as if its answer had been lost; later calls go through.
	loseFirstAnswer
	// hold keeps every call of the method from the server until release is called.
	hold
)

// faults injects failures per method and records the requests sent.
type faults struct {
	mu          sync.Mutex
	rules       map[string]fault           // by method name, e.g. "Heartbeat"
	sent        map[string][]proto.Message // by method name
	released    chan struct{}              // closed by release: held calls go through
	releaseOnce sync.Once
}

func newFaults() *faults {
	return &faults{rules: map[string]fault{}, sent: map[string][]proto.Message{}, released: make(chan struct{})}
}

// release lets every held call, and every later one, go through to the server.
func (f *faults) release() { f.releaseOnce.Do(func() { close(f.released) }) }

// set applies rule to the method's calls from now on, and forgets its earlier requests.
func (f *faults) set(method string, rule fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules[method] = rule
	delete(f.sent, method)
}

func (f *faults) requests(method string) []proto.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]proto.Message(nil), f.sent[method]...)
}

func (f *faults) option() tasklife.Option {
	return tasklife.WithDialOptions(grpc.WithUnaryInterceptor(func(ctx context.Context, fullMethod string, req, reply any,
		cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		method := fullMethod[strings.LastIndex(fullMethod, "/")+1:]
		f.mu.Lock()
		f.sent[method] = append(f.sent[method], proto.Clone(req.(proto.Message)))
		rule := f.rules[method]
		if rule == loseFirstAnswer {
			f.rules[method] = 0
		}
		f.mu.Unlock()
		switch rule {
		case refuse:
			return status.Error(codes.Unavailable, "injected: connection refused")
		case loseFirstAnswer:
			if err := invoker(ctx, fullMethod, req, reply, cc, opts...); err != nil {
				return err
			}
			return status.Error(codes.Unavailable, "injected: the answer was lost")
		case hold:
			select {
			case <-f.released:
			case <-ctx.Done():
				return status.FromContextError(ctx.Err()).Err()
			}
		}
		return invoker(ctx, fullMethod, req, reply, cc, opts...)
	}))
}

func TestWorkerRetriesALostClaimWithTheSameRequestIDAndGetsItsTasks(t *testing.T) {
	t.Parallel()
	injected := newFaults()
	client := connect(t, injected.option())
	namespace, id := oneReadyTask(t, client)
	injected.set("ClaimTasks", loseFirstAnswer)
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error { return nil },
		func(o *tasklife.WorkerOptions) { o.LeaseDuration = 30 * time.Second }) // a stranded task would stay RUNNING

	eventually(t, "the completion", func() bool { return w.Metrics().Completed == 1 })
	events := ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_COMPLETE)
	claims := injected.requests("ClaimTasks")
	first, retry := claims[0].(*pb.ClaimTasksRequest), claims[1].(*pb.ClaimTasksRequest)
	if first.GetRequestId() == "" || retry.GetRequestId() != first.GetRequestId() || events[2].GetRequestId() != first.GetRequestId() {
		t.Fatalf("claim request_ids %q then %q, StartTask recorded %q: want one request_id throughout",
			first.GetRequestId(), retry.GetRequestId(), events[2].GetRequestId())
	}
}

func TestWorkerRetriesALostReportWithTheSameRequestIDsAndRecordsItOnce(t *testing.T) {
	t.Parallel()
	injected := newFaults()
	client := connect(t, injected.option())
	namespace, id := oneReadyTask(t, client)
	injected.set("BatchTransitionTasks", loseFirstAnswer)
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error { return nil })

	eventually(t, "the completion", func() bool { return w.Metrics().Completed == 1 })
	ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_COMPLETE)
	reports := injected.requests("BatchTransitionTasks")
	if len(reports) != 2 || !proto.Equal(reports[0], reports[1]) {
		t.Fatalf("want the lost report sent again unchanged, got %v", reports)
	}
	if m := w.Metrics(); m.ReportCalls != 2 || m.ReportFailures != 0 {
		t.Fatalf("metrics %+v, want two report calls and no failure", m)
	}
}

func TestWorkerTreatsTheLeaseAsLostWhenNoHeartbeatSucceedsForAWholeLease(t *testing.T) {
	t.Parallel()
	injected := newFaults()
	client := connect(t, injected.option())
	namespace, id := oneReadyTask(t, client)
	handler := newBlocking()
	w := startWorker(t, client, namespace, handler.handle, func(o *tasklife.WorkerOptions) { o.LeaseDuration = time.Second })

	received(t, "the handler to start", handler.started)
	injected.set("Heartbeat", refuse)
	cause := handler.awaitCancel(t)
	var fromServer *tasklife.Error
	if !errors.Is(cause, tasklife.ErrLeaseLost) || errors.As(cause, &fromServer) {
		t.Fatalf("the context's cause is %v, want ErrLeaseLost found by the worker itself", cause)
	}
	if m := w.Metrics(); m.HeartbeatFailures < 1 || m.Dropped != 1 || m.ReportCalls != 0 {
		t.Fatalf("metrics %+v, want heartbeat failures, one drop and no report", m)
	}
	// The server, too, found the lease expired: it failed the task itself.
	eventually(t, "the server's lease expiry", func() bool { return len(history(t, client, id)) == 4 })
	fail := ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_FAIL)[3]
	if fail.GetOperator() != "system:lease" {
		t.Fatalf("the task was failed by %q, want the server's lease expiry (system:lease)", fail.GetOperator())
	}
}

// claimSizes are the max_tasks of the claims sent so far, in order.
func claimSizes(f *faults) []int32 {
	var sizes []int32
	for _, req := range f.requests("ClaimTasks") {
		sizes = append(sizes, req.(*pb.ClaimTasksRequest).GetMaxTasks())
	}
	return sizes
}

// completedAll waits for the worker to complete every task, each once.
func completedAll(t *testing.T, w *runningWorker, client *tasklife.Client, ids []string) {
	t.Helper()
	eventually(t, "every completion", func() bool { return w.Metrics().Completed == int64(len(ids)) })
	for _, id := range ids {
		ranOnce(t, client, id, pb.TaskAction_TASK_ACTION_COMPLETE)
	}
}

func TestWorkerClaimsTheNextTaskBeforeTheLastOnesReportIsAnswered(t *testing.T) {
	t.Parallel()
	injected, client, namespace, ids := withReportsHeld(t, 2)
	defer injected.release()
	var ran atomic.Int64
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error {
		ran.Add(1)
		return nil
	}, func(o *tasklife.WorkerOptions) { o.Concurrency = 1 })

	// The slot freed when the first handler returned, though its report is held.
	eventually(t, "the second handler", func() bool { return ran.Load() == 2 })
	if m := w.Metrics(); m.Completed != 0 || m.Claimed != 2 {
		t.Fatalf("metrics %+v, want two tasks claimed and none completed yet", m)
	}
	injected.release()
	completedAll(t, w, client, ids)
}

func TestWorkerHoldsAtMostTwiceConcurrencyTasksWhileReportsAreUnanswered(t *testing.T) {
	t.Parallel()
	injected, client, namespace, ids := withReportsHeld(t, 6)
	defer injected.release()
	var ran atomic.Int64
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error {
		ran.Add(1)
		return nil
	}, func(o *tasklife.WorkerOptions) { o.Concurrency = 2 })

	eventually(t, "four handlers", func() bool { return ran.Load() == 4 && w.Metrics().Running == 0 })
	if sizes := claimSizes(injected); !slices.Equal(sizes, []int32{2, 2}) {
		t.Fatalf("claims for %v tasks while the reports were held, want [2 2]: four tasks held, no more", sizes)
	}
	if m := w.Metrics(); m.Claimed != 4 || m.Completed != 0 {
		t.Fatalf("metrics %+v, want four tasks claimed and none completed yet", m)
	}
	injected.release()
	completedAll(t, w, client, ids)
}

func TestWorkerClaimsOnceForHandlersThatReturnOneByOneWhileTheirReportsAreUnanswered(t *testing.T) {
	t.Parallel()
	injected, client, namespace, ids := withReportsHeld(t, 6)
	defer injected.release()
	proceed := make(chan struct{}, 2*len(ids))
	defer func() {
		for range ids {
			proceed <- struct{}{} // if the test failed: lets the handlers still waiting finish
		}
	}()
	var entered, returned atomic.Int64
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error {
		entered.Add(1)
		<-proceed
		returned.Add(1)
		return nil
	}, func(o *tasklife.WorkerOptions) { o.Concurrency = 3 })

	eventually(t, "the first three handlers", func() bool { return entered.Load() == 3 })
	for n := int64(1); n <= 2; n++ {
		proceed <- struct{}{}
		eventually(t, "a handler to return", func() bool { return returned.Load() == n })
		if sizes := claimSizes(injected); !slices.Equal(sizes, []int32{3}) {
			t.Fatalf("claims for %v tasks once %d of 3 handlers returned, want only the first claim [3]", sizes, n)
		}
	}
	proceed <- struct{}{}
	eventually(t, "the next three handlers", func() bool { return entered.Load() == 6 })
	if sizes := claimSizes(injected); !slices.Equal(sizes, []int32{3, 3}) {
		t.Fatalf("claims for %v tasks, want [3 3]: one claim for the three slots freed one by one", sizes)
	}
	for range 3 {
		proceed <- struct{}{}
	}
	injected.release()
	completedAll(t, w, client, ids)
}

func TestWorkerClaimsForPartOfARoundOnceTheOutcomesBeforeItAreReported(t *testing.T) {
	t.Parallel()
	injected := newFaults()
	client := connect(t, injected.option())
	namespace := uniqueNamespace("wk")
	ids := readyTasks(t, client, namespace, 3)
	release := make(chan struct{})
	var entered atomic.Int64
	w := startWorker(t, client, namespace, func(context.Context, *pb.Task) error {
		if entered.Add(1) == 1 {
			<-release // the first handler runs until the other tasks are done
		}
		return nil
	}, func(o *tasklife.WorkerOptions) { o.Concurrency = 2 })

	eventually(t, "the two other tasks", func() bool { return w.Metrics().Completed == 2 })
	if sizes := claimSizes(injected); len(sizes) < 2 || !slices.Equal(sizes[:2], []int32{2, 1}) {
		t.Fatalf("claims for %v tasks, want [2 1 ...]: the freed slot claimed for while the first handler runs", sizes)
	}
	close(release)
	completedAll(t, w, client, ids)
}

// withReportsHeld connects through faults that hold every BatchTransitionTasks call until
// released, and makes count tasks ready in a namespace of their own.
func withReportsHeld(t *testing.T, count int) (*faults, *tasklife.Client, string, []string) {
	t.Helper()
	injected := newFaults()
	client := connect(t, injected.option())
	namespace := uniqueNamespace("wk")
	ids := readyTasks(t, client, namespace, count)
	injected.set("BatchTransitionTasks", hold)
	return injected, client, namespace, ids
}
