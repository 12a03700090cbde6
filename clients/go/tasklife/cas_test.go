package tasklife_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

func TestCompareAndSwapRetriesWithTheFreshVersionWhenAsked(t *testing.T) {
	client := connect(t)
	ctx := withTimeout(t, 10*time.Second)
	id := createTask(t, client, uniqueID("cas-retry")).GetTaskId()
	moveThrough(t, client, id, "enqueue") // someone else moved it: version 1 is stale

	resp, err := tasklife.CompareAndSwap(ctx, client, client.StartTask,
		&pb.StartTaskRequest{TaskId: id, ExpectedVersion: proto.Int64(1)},
		tasklife.RetryOnVersionMismatch(2))
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetTask().GetState() != pb.TaskState_TASK_STATE_RUNNING || resp.GetTask().GetVersion() != 3 {
		t.Fatalf("want RUNNING at version 3, got %v", resp.GetTask())
	}
}

func TestCompareAndSwapWithoutRetryReportsTheMismatch(t *testing.T) {
	client := connect(t)
	ctx := withTimeout(t, 10*time.Second)
	id := createTask(t, client, uniqueID("cas-once")).GetTaskId()
	moveThrough(t, client, id, "enqueue")

	_, err := tasklife.CompareAndSwap(ctx, client, client.StartTask,
		&pb.StartTaskRequest{TaskId: id, ExpectedVersion: proto.Int64(1)})
	var mismatch *tasklife.VersionMismatchError
	if !errors.As(err, &mismatch) || mismatch.CurrentVersion != 2 || mismatch.CurrentState != pb.TaskState_TASK_STATE_READY {
		t.Fatalf("want a version mismatch at version 2 (READY), got %v", err)
	}
}

func TestCompareAndSwapGivesUpAfterItsAttempts(t *testing.T) {
	client := connect(t)
	ctx := withTimeout(t, 10*time.Second)
	id := createTask(t, client, uniqueID("cas-busy")).GetTaskId()
	moveThrough(t, client, id, "enqueue")

	// A competitor moves the task every time the helper has re-read it, so every
	// attempt is stale by the time it is sent.
	rereads := 0
	competitor := tasklife.RecheckBeforeRetry(func(*pb.Task) error {
		rereads++
		moveThrough(t, client, id, "pause", "resume")
		return nil
	})
	_, err := tasklife.CompareAndSwap(ctx, client, client.StartTask,
		&pb.StartTaskRequest{TaskId: id, ExpectedVersion: proto.Int64(1)},
		tasklife.RetryOnVersionMismatch(3), competitor)
	var mismatch *tasklife.VersionMismatchError
	if !errors.As(err, &mismatch) {
		t.Fatalf("want a version mismatch after 3 attempts, got %v", err)
	}
	if rereads != 2 {
		t.Fatalf("re-reads: %d, want 2 (between 3 attempts)", rereads)
	}
}

func TestCompareAndSwapStopsWhenTheRecheckSaysSo(t *testing.T) {
	client := connect(t)
	ctx := withTimeout(t, 10*time.Second)
	id := createTask(t, client, uniqueID("cas-recheck")).GetTaskId()
	moveThrough(t, client, id, "enqueue", "pause")
	errNotReady := errors.New("no longer ready")

	_, err := tasklife.CompareAndSwap(ctx, client, client.StartTask,
		&pb.StartTaskRequest{TaskId: id, ExpectedVersion: proto.Int64(2)},
		tasklife.RetryOnVersionMismatch(3),
		tasklife.RecheckBeforeRetry(func(current *pb.Task) error {
			if current.GetState() != pb.TaskState_TASK_STATE_READY {
				return errNotReady
			}
			return nil
		}))
	if !errors.Is(err, errNotReady) {
		t.Fatalf("want the recheck's error, got %v", err)
	}
}

func TestCompareAndSwapRefusesARequestWithoutExpectedVersion(t *testing.T) {
	// No server needed: the helper refuses before calling.
	client, err := tasklife.Connect("127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	calls := 0
	start := func(ctx context.Context, req *pb.StartTaskRequest) (*pb.StartTaskResponse, error) {
		calls++
		return client.StartTask(ctx, req)
	}
	_, err = tasklife.CompareAndSwap(context.Background(), client, start, &pb.StartTaskRequest{TaskId: "t"})
	if err == nil || calls != 0 {
		t.Fatalf("want a refusal without any call, got %v after %d calls", err, calls)
	}
}

func TestCompareAndSwapLeavesTheCallersRequestAlone(t *testing.T) {
	client := connect(t)
	ctx := withTimeout(t, 10*time.Second)
	id := createTask(t, client, uniqueID("cas-clone")).GetTaskId()
	moveThrough(t, client, id, "enqueue")
	request := &pb.StartTaskRequest{TaskId: id, ExpectedVersion: proto.Int64(1)}

	if _, err := tasklife.CompareAndSwap(ctx, client, client.StartTask, request, tasklife.RetryOnVersionMismatch(2)); err != nil {
		t.Fatal(err)
	}
	if request.GetExpectedVersion() != 1 {
		t.Fatalf("the caller's request was changed: %v", request)
	}
}
