package tasklife_test

// The Worker under transient failures. An interceptor on the worker's connection makes
// calls fail with UNAVAILABLE, either before they reach the (real) server or after the
// server has answered, as a dropped connection would lose the answer.

import (
	"context"
	"errors"
	"strings"
	"sync"
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
)

// faults injects failures per method and records the requests sent.
type faults struct {
	mu    sync.Mutex
	rules map[string]fault           // by method name, e.g. "Heartbeat"
	sent  map[string][]proto.Message // by method name
}

func newFaults() *faults {
	return &faults{rules: map[string]fault{}, sent: map[string][]proto.Message{}}
}

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
