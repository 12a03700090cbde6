package tasklife_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

func TestWatchSeesChangesMadeRightAfterItReturnsEvenWhenStartingFromNow(t *testing.T) {
	client := connect(t)
	ctx := withTimeout(t, 10*time.Second)
	id := uniqueID("watch-now")

	watcher, err := client.Watch(ctx, &pb.WatchTaskEventsRequest{TaskIds: []string{id}})
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	createTask(t, client, id)

	event := next(t, watcher)
	if event.GetTaskId() != id || event.GetAction() != pb.TaskAction_TASK_ACTION_CREATE {
		t.Fatalf("want the creation of %s, got %v", id, event)
	}
}

func TestWatchResumesFromTheLastCursorWhenTheCallIsCancelledUnderIt(t *testing.T) {
	dropper := &streamDropper{}
	client := connect(t, tasklife.WithDialOptions(dropper.dialOption()))
	ctx := withTimeout(t, 10*time.Second)
	id := createTask(t, client, uniqueID("watch-drop")).GetTaskId()

	watcher, err := client.Watch(ctx, fromBeginning(id))
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	if v := next(t, watcher).GetVersion(); v != 1 {
		t.Fatalf("first event: version %d, want 1", v)
	}
	cursorAtDrop := watcher.Cursor()
	dropper.drop()
	moveThrough(t, client, id, "enqueue", "start", "complete")

	if got := versionsOf(t, watcher, 3); !slices.Equal(got, []int64{2, 3, 4}) {
		t.Fatalf("versions after the drop: %v, want [2 3 4] (no gap, no duplicate)", got)
	}
	if watcher.Reconnects() != 1 {
		t.Errorf("reconnects: %d, want 1", watcher.Reconnects())
	}
	requests := dropper.watchRequests()
	if len(requests) != 2 || requests[1].GetAfterCursor() != cursorAtDrop {
		t.Errorf("want a second stream resuming after %q, got requests %v", cursorAtDrop, requests)
	}
	if !slices.Equal(requests[1].GetTaskIds(), []string{id}) {
		t.Errorf("the resumed stream lost the filter: %v", requests[1])
	}
}

func TestWatchResumesAfterTheConnectionIsLost(t *testing.T) {
	proxy := startProxy(t, liveAddress(t), nil)
	client := connect(t)
	throughProxy, err := tasklife.Connect(proxy.address())
	if err != nil {
		t.Fatal(err)
	}
	defer throughProxy.Close()
	ctx := withTimeout(t, 10*time.Second)
	id := createTask(t, client, uniqueID("watch-cut")).GetTaskId()

	watcher, err := throughProxy.Watch(ctx, fromBeginning(id))
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	if v := next(t, watcher).GetVersion(); v != 1 {
		t.Fatalf("first event: version %d, want 1", v)
	}
	proxy.cutConnections() // the stream ends in UNAVAILABLE
	moveThrough(t, client, id, "enqueue", "start")

	if got := versionsOf(t, watcher, 2); !slices.Equal(got, []int64{2, 3}) {
		t.Fatalf("versions after the cut: %v, want [2 3]", got)
	}
	if watcher.Reconnects() < 1 {
		t.Errorf("the watch never reconnected")
	}
}

func TestWatchReturnsTheServersRefusalAsATypedError(t *testing.T) {
	client := connect(t)
	ctx := withTimeout(t, 10*time.Second)

	_, err := client.Watch(ctx, &pb.WatchTaskEventsRequest{
		Start: &pb.WatchTaskEventsRequest_AfterCursor{AfterCursor: "not-a-cursor"},
	})
	var refusal *tasklife.Error
	if !errors.As(err, &refusal) || refusal.Code != codes.InvalidArgument || refusal.Reason != tasklife.ReasonInvalidRequest {
		t.Fatalf("want INVALID_ARGUMENT / INVALID_REQUEST, got %v", err)
	}
}

func TestWatchEndsWithContextCanceledWhenClosed(t *testing.T) {
	client := connect(t)
	watcher, err := client.Watch(withTimeout(t, 10*time.Second), &pb.WatchTaskEventsRequest{TaskIds: []string{uniqueID("nobody")}})
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, watcher.Close)
	if _, err := watcher.Next(); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}

func TestWatchEndsWhenItsClientIsClosed(t *testing.T) {
	client, err := tasklife.Connect(liveAddress(t))
	if err != nil {
		t.Fatal(err)
	}
	watcher, err := client.Watch(withTimeout(t, 10*time.Second), &pb.WatchTaskEventsRequest{TaskIds: []string{uniqueID("nobody")}})
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, func() { _ = client.Close() })
	_, err = watcher.Next()
	if status.Code(err) != codes.Canceled {
		t.Fatalf("want CANCELED at once, not reconnection attempts; got %v", err)
	}
}

func fromBeginning(taskID string) *pb.WatchTaskEventsRequest {
	return &pb.WatchTaskEventsRequest{
		Start:   &pb.WatchTaskEventsRequest_FromBeginning{FromBeginning: true},
		TaskIds: []string{taskID},
	}
}

func next(t *testing.T, watcher *tasklife.Watcher) *pb.TaskEvent {
	t.Helper()
	event, err := watcher.Next()
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	return event
}

func versionsOf(t *testing.T, watcher *tasklife.Watcher, count int) []int64 {
	t.Helper()
	var versions []int64
	for range count {
		versions = append(versions, next(t, watcher).GetVersion())
	}
	return versions
}

func withTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// createTask creates a task that is never retried by the server on its own, so only the
// test moves it.
func createTask(t testing.TB, client *tasklife.Client, id string) *pb.Task {
	t.Helper()
	resp, err := client.CreateTask(context.Background(), &pb.CreateTaskRequest{
		TaskId:      id,
		Operator:    "go-client-tests",
		RetryPolicy: &pb.RetryPolicy{MaxAttempts: 1},
	})
	if err != nil {
		t.Fatalf("CreateTask %s: %v", id, err)
	}
	return resp.GetTask()
}

// moveThrough makes unconditional transitions, by short names, in order.
func moveThrough(t *testing.T, client *tasklife.Client, id string, actions ...string) {
	t.Helper()
	ctx := context.Background()
	for _, action := range actions {
		var err error
		switch action {
		case "enqueue":
			_, err = client.EnqueueTask(ctx, &pb.EnqueueTaskRequest{TaskId: id})
		case "start":
			_, err = client.StartTask(ctx, &pb.StartTaskRequest{TaskId: id})
		case "complete":
			_, err = client.CompleteTask(ctx, &pb.CompleteTaskRequest{TaskId: id})
		case "pause":
			_, err = client.PauseTask(ctx, &pb.PauseTaskRequest{TaskId: id})
		case "resume":
			_, err = client.ResumeTask(ctx, &pb.ResumeTaskRequest{TaskId: id})
		default:
			t.Fatalf("moveThrough: unknown action %q", action)
		}
		if err != nil {
			t.Fatalf("%s %s: %v", action, id, err)
		}
	}
}
