package tasklife_test

// Point-in-time reads (GetTask/ListTasks as_of) and the ListTaskEvents time range: the
// page iterators send them with every page, as they send every other field.

import (
	"context"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// sentRequests records the request of every unary call as it goes out on the connection.
type sentRequests struct {
	mu       sync.Mutex
	requests []proto.Message
}

func (s *sentRequests) dialOption() grpc.DialOption {
	return grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn,
		invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		s.mu.Lock()
		s.requests = append(s.requests, proto.Clone(req.(proto.Message)))
		s.mu.Unlock()
		return invoker(ctx, method, req, reply, cc, opts...)
	})
}

func sentOf[T proto.Message](s *sentRequests) []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []T
	for _, r := range s.requests {
		if typed, ok := r.(T); ok {
			out = append(out, typed)
		}
	}
	return out
}

func TestAllTaskEventsSendsTheTimeRangeWithEveryPage(t *testing.T) {
	sent := &sentRequests{}
	client := connect(t, tasklife.WithDialOptions(sent.dialOption()))
	id := readyTasks(t, client, uniqueNamespace("hist"), 1)[0]
	start, end := timestamppb.New(time.Now().Add(-time.Hour)), timestamppb.New(time.Now().Add(time.Hour))

	var versions []int64
	for event, err := range client.AllTaskEvents(context.Background(), &pb.ListTaskEventsRequest{
		TaskId: id, PageSize: 1, StartTime: start, EndTime: end,
	}) {
		if err != nil {
			t.Fatalf("AllTaskEvents: %v", err)
		}
		versions = append(versions, event.GetVersion())
	}
	if len(versions) != 2 || versions[0] != 1 || versions[1] != 2 {
		t.Fatalf("versions %v, want the create and the enqueue (both inside the range)", versions)
	}
	pages := sentOf[*pb.ListTaskEventsRequest](sent)
	if len(pages) < 2 {
		t.Fatalf("%d ListTaskEvents calls for two pages of one event", len(pages))
	}
	for i, page := range pages {
		if !proto.Equal(page.GetStartTime(), start) || !proto.Equal(page.GetEndTime(), end) {
			t.Fatalf("page %d was asked for %v..%v, want %v..%v", i+1, page.GetStartTime(), page.GetEndTime(), start, end)
		}
	}
}

func TestAllTasksSendsAsOfWithEveryPage(t *testing.T) {
	sent := &sentRequests{}
	client := connect(t, tasklife.WithDialOptions(sent.dialOption()))
	namespace := uniqueNamespace("hist")
	ids := readyTasks(t, client, namespace, 2)
	asOf := timestamppb.Now() // after both were created and enqueued

	var listed []string
	for task, err := range client.AllTasks(context.Background(), &pb.ListTasksRequest{
		Namespaces: []string{namespace}, PageSize: 1, AsOf: asOf,
	}) {
		if err != nil {
			t.Fatalf("AllTasks: %v", err)
		}
		listed = append(listed, task.GetTaskId())
	}
	if len(listed) != 2 || !(listed[0] == ids[0] && listed[1] == ids[1] || listed[0] == ids[1] && listed[1] == ids[0]) {
		t.Fatalf("listed %v, want both tasks %v", listed, ids)
	}
	pages := sentOf[*pb.ListTasksRequest](sent)
	if len(pages) < 2 {
		t.Fatalf("%d ListTasks calls for two pages of one task", len(pages))
	}
	for i, page := range pages {
		if !proto.Equal(page.GetAsOf(), asOf) {
			t.Fatalf("page %d was asked as of %v, want %v", i+1, page.GetAsOf(), asOf)
		}
	}
}
