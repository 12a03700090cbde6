package tasklife_test

// The attempts RPCs through the wrapper, against the live server: ListTaskAttempts and
// ListTaskFailures with their page iterators, and a watch of only some actions.

import (
	"context"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// failedAttempt creates a task in namespace (retried by its policy up to maxAttempts),
// starts it for worker "w" and fails it with failure; it returns the task's id.
func failedAttempt(t *testing.T, client *tasklife.Client, namespace string, maxAttempts int32, failure *pb.TaskFailure) string {
	t.Helper()
	id := readyTask(t, client, namespace, &pb.CreateTaskRequest{RetryPolicy: &pb.RetryPolicy{MaxAttempts: maxAttempts, InitialBackoff: durationpb.New(0)}})
	ctx := context.Background()
	if _, err := client.StartTask(ctx, &pb.StartTaskRequest{TaskId: id, Worker: "w"}); err != nil {
		t.Fatalf("StartTask: %v", err)
	}
	if _, err := client.FailTask(ctx, &pb.FailTaskRequest{TaskId: id, Worker: "w", Failure: failure}); err != nil {
		t.Fatalf("FailTask: %v", err)
	}
	return id
}

func TestAllTaskAttemptsFollowsThePagesOfATasksAttempts(t *testing.T) {
	t.Parallel()
	client := connect(t)
	ctx := context.Background()
	failure := &pb.TaskFailure{ErrorType: "DiskFull", Message: "no space", ExitCode: proto.Int32(28)}
	id := failedAttempt(t, client, uniqueNamespace("at"), 2, failure)
	eventually(t, "the retry", func() bool { return currentTask(t, client, id).GetState() == pb.TaskState_TASK_STATE_READY })
	if _, err := client.StartTask(ctx, &pb.StartTaskRequest{TaskId: id, Worker: "w"}); err != nil {
		t.Fatalf("StartTask: %v", err)
	}
	result := tasklife.TextPayload("done")
	if _, err := client.CompleteTask(ctx, &pb.CompleteTaskRequest{TaskId: id, Worker: "w", Result: result, ExitCode: proto.Int32(0)}); err != nil {
		t.Fatalf("CompleteTask: %v", err)
	}

	var attempts []*pb.TaskAttempt
	for attempt, err := range client.AllTaskAttempts(ctx, &pb.ListTaskAttemptsRequest{TaskId: id, PageSize: 1}) {
		if err != nil {
			t.Fatalf("AllTaskAttempts: %v", err)
		}
		attempts = append(attempts, attempt)
	}
	if len(attempts) != 2 {
		t.Fatalf("%d attempts, want 2: %v", len(attempts), attempts)
	}
	first, second := attempts[0], attempts[1]
	if first.GetAttempt() != 1 || first.GetEndAction() != pb.TaskAction_TASK_ACTION_FAIL || !proto.Equal(first.GetFailure(), failure) {
		t.Fatalf("first attempt %v, want attempt 1 ended by FailTask with %v", first, failure)
	}
	if second.GetAttempt() != 2 || second.GetEndAction() != pb.TaskAction_TASK_ACTION_COMPLETE || !second.GetHasResult() || second.ExitCode == nil || second.GetExitCode() != 0 {
		t.Fatalf("second attempt %v, want attempt 2 completed with a result and exit code 0", second)
	}
}

func TestListTaskFailuresCountsEveryMatchByTypeAndAllTaskFailuresPagesThemNewestFirst(t *testing.T) {
	t.Parallel()
	client := connect(t)
	namespace := uniqueNamespace("at")
	ids := []string{
		failedAttempt(t, client, namespace, 1, &pb.TaskFailure{ErrorType: "Timeout"}),
		failedAttempt(t, client, namespace, 1, &pb.TaskFailure{ErrorType: "DiskFull"}),
		failedAttempt(t, client, namespace, 1, &pb.TaskFailure{ErrorType: "Timeout"}),
	}
	req := &pb.ListTaskFailuresRequest{Namespaces: []string{namespace}, PageSize: 1}

	page, err := client.ListTaskFailures(context.Background(), req)
	if err != nil {
		t.Fatalf("ListTaskFailures: %v", err)
	}
	counts := map[string]int64{}
	for _, count := range page.GetCounts() {
		counts[count.GetErrorType()] = count.GetCount()
	}
	if len(counts) != 2 || counts["Timeout"] != 2 || counts["DiskFull"] != 1 {
		t.Fatalf("counts %v, want Timeout 2 and DiskFull 1 (every page's matches)", page.GetCounts())
	}
	var newestFirst []string
	for event, err := range client.AllTaskFailures(context.Background(), req) {
		if err != nil {
			t.Fatalf("AllTaskFailures: %v", err)
		}
		newestFirst = append(newestFirst, event.GetTaskId())
	}
	if want := []string{ids[2], ids[1], ids[0]}; !slices.Equal(newestFirst, want) {
		t.Fatalf("failures of %v, want %v", newestFirst, want)
	}
}

func TestWatchWithActionsDeliversOnlyThoseActions(t *testing.T) {
	t.Parallel()
	client := connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	namespace := uniqueNamespace("at")
	w, err := client.Watch(ctx, &pb.WatchTaskEventsRequest{Namespaces: []string{namespace}, Actions: []pb.TaskAction{pb.TaskAction_TASK_ACTION_FAIL}})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Close()
	id := failedAttempt(t, client, namespace, 1, &pb.TaskFailure{ErrorType: "Timeout"})

	event, err := w.Next() // create, enqueue and start came first, but only FAIL is sent
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	if event.GetTaskId() != id || event.GetAction() != pb.TaskAction_TASK_ACTION_FAIL || event.GetFailure().GetErrorType() != "Timeout" {
		t.Fatalf("first event %v, want the FAIL of %s", event, id)
	}
}
