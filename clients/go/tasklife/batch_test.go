package tasklife_test

// The batch RPCs and ClaimTasks through the wrapper, against the live server.

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// uniqueNamespace is a namespace no other test (or earlier run) puts tasks in, so that a
// claim there only sees the test's own tasks.
func uniqueNamespace(prefix string) string {
	return uniqueID(prefix)
}

// readyTasks creates n tasks in namespace with BatchCreateTasks (never retried after a
// failure), enqueues them with BatchTransitionTasks, and returns their ids.
func readyTasks(t *testing.T, client *tasklife.Client, namespace string, n int) []string {
	t.Helper()
	ctx := context.Background()
	ids := make([]string, n)
	creates := make([]*pb.CreateTaskRequest, n)
	enqueues := make([]*pb.BatchTransitionTasksItem, n)
	for i := range ids {
		ids[i] = uniqueID("wt")
		creates[i] = &pb.CreateTaskRequest{TaskId: ids[i], Namespace: namespace, RetryPolicy: &pb.RetryPolicy{MaxAttempts: 1}}
		enqueues[i] = tasklife.TransitionItem(&pb.EnqueueTaskRequest{TaskId: ids[i]})
	}
	created, err := client.BatchCreateTasks(ctx, &pb.BatchCreateTasksRequest{Requests: creates})
	allSucceeded(t, "create", ids, created.GetResults(), err)
	enqueued, err := client.BatchTransitionTasks(ctx, &pb.BatchTransitionTasksRequest{Items: enqueues})
	allSucceeded(t, "enqueue", ids, enqueued.GetResults(), err)
	return ids
}

// allSucceeded fails the test unless a batch call and each of its items succeeded.
func allSucceeded[R tasklife.BatchResult](t *testing.T, what string, ids []string, results []R, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(results) != len(ids) {
		t.Fatalf("%s: %d results for %d items", what, len(results), len(ids))
	}
	for i, result := range results {
		if err := tasklife.ResultError(result); err != nil {
			t.Fatalf("%s %s: %v", what, ids[i], err)
		}
	}
}

func TestBatchCreateTasksAnswersEachRequestInOrderWithTypedRefusals(t *testing.T) {
	client := connect(t)
	namespace := uniqueNamespace("batch")
	id := uniqueID("bc")
	resp, err := client.BatchCreateTasks(context.Background(), &pb.BatchCreateTasksRequest{Requests: []*pb.CreateTaskRequest{
		{TaskId: id, Namespace: namespace},
		{TaskId: uniqueID("bc"), Namespace: namespace, DependsOn: []string{id + "-missing"}},
		{TaskId: "-not a valid id", Namespace: namespace},
	}})
	if err != nil {
		t.Fatalf("BatchCreateTasks: %v", err)
	}
	results := resp.GetResults()
	if len(results) != 3 {
		t.Fatalf("want 3 results, got %d", len(results))
	}
	if err := tasklife.ResultError(results[0]); err != nil || results[0].GetTask().GetTaskId() != id ||
		results[0].GetTask().GetState() != pb.TaskState_TASK_STATE_CREATED || results[0].GetEvent().GetVersion() != 1 {
		t.Fatalf("first item: want %s created at version 1, got %v (error %v)", id, results[0].GetTask(), err)
	}
	var refused *tasklife.Error
	if err := tasklife.ResultError(results[1]); !errors.As(err, &refused) ||
		refused.Code != codes.FailedPrecondition || refused.Reason != tasklife.ReasonReferencedTaskNotFound {
		t.Fatalf("second item: want FAILED_PRECONDITION / REFERENCED_TASK_NOT_FOUND, got %v", err)
	}
	if err := tasklife.ResultError(results[2]); !errors.As(err, &refused) ||
		refused.Code != codes.InvalidArgument || refused.Reason != tasklife.ReasonInvalidRequest || refused.BadRequest() == nil {
		t.Fatalf("third item: want INVALID_ARGUMENT / INVALID_REQUEST with field violations, got %v", err)
	}
}

func TestBatchTransitionTasksReportsAnItemsRefusalAsTheSingleRPCsTypedError(t *testing.T) {
	client := connect(t)
	ids := readyTasks(t, client, uniqueNamespace("batch"), 2)
	missing := uniqueID("absent")
	resp, err := client.BatchTransitionTasks(context.Background(), &pb.BatchTransitionTasksRequest{Items: []*pb.BatchTransitionTasksItem{
		tasklife.TransitionItem(&pb.StartTaskRequest{TaskId: ids[0], Worker: "w1"}),
		tasklife.TransitionItem(&pb.CompleteTaskRequest{TaskId: ids[1]}), // READY: not allowed
		tasklife.TransitionItem(&pb.PauseTaskRequest{TaskId: missing}),
		tasklife.TransitionItem(&pb.CompleteTaskRequest{TaskId: ids[0], Worker: "w1"}), // after the first item
	}})
	if err != nil {
		t.Fatalf("BatchTransitionTasks: %v", err)
	}
	results := resp.GetResults()
	if len(results) != 4 {
		t.Fatalf("want 4 results, got %d", len(results))
	}
	if err := tasklife.ResultError(results[0]); err != nil || results[0].GetTask().GetState() != pb.TaskState_TASK_STATE_RUNNING {
		t.Fatalf("start: want RUNNING, got %v (error %v)", results[0].GetTask(), err)
	}
	var invalid *tasklife.InvalidTransitionError
	if err := tasklife.ResultError(results[1]); !errors.As(err, &invalid) ||
		invalid.CurrentState != pb.TaskState_TASK_STATE_READY || invalid.TaskID != ids[1] {
		t.Fatalf("complete from READY: want *InvalidTransitionError from READY, got %v", err)
	}
	var notFound *tasklife.NotFoundError
	if err := tasklife.ResultError(results[2]); !errors.As(err, &notFound) || notFound.TaskID != missing {
		t.Fatalf("pause of a missing task: want *NotFoundError naming %s, got %v", missing, err)
	}
	if err := tasklife.ResultError(results[3]); err != nil || results[3].GetTask().GetState() != pb.TaskState_TASK_STATE_SUCCEEDED {
		t.Fatalf("complete after start in the same batch: want SUCCEEDED, got %v (error %v)", results[3].GetTask(), err)
	}
}

func TestABatchOfMoreThanAThousandItemsIsRefusedAsAWhole(t *testing.T) {
	client := connect(t)
	items := make([]*pb.BatchTransitionTasksItem, 1001)
	for i := range items {
		items[i] = tasklife.TransitionItem(&pb.EnqueueTaskRequest{TaskId: "x"})
	}
	_, err := client.BatchTransitionTasks(context.Background(), &pb.BatchTransitionTasksRequest{Items: items})
	var refused *tasklife.Error
	if !errors.As(err, &refused) || refused.Code != codes.InvalidArgument || refused.Reason != tasklife.ReasonBatchTooLarge ||
		refused.Metadata["limit"] != "1000" || refused.Metadata["requested"] != "1001" {
		t.Fatalf("want INVALID_ARGUMENT / BATCH_TOO_LARGE (limit 1000, requested 1001), got %v", err)
	}
}

func TestClaimTasksStartsTheOldestReadyTasksForTheWorker(t *testing.T) {
	client := connect(t)
	namespace := uniqueNamespace("claim")
	ids := make([]string, 3)
	for i := range ids {
		created, err := client.CreateTask(context.Background(), &pb.CreateTaskRequest{TaskId: uniqueID("ct"), Namespace: namespace})
		if err != nil {
			t.Fatalf("CreateTask: %v", err)
		}
		ids[i] = created.GetTask().GetTaskId()
	}
	readyOrder := []string{ids[2], ids[0], ids[1]} // not the order of creation or of the ids
	for _, id := range readyOrder {
		if _, err := client.EnqueueTask(context.Background(), &pb.EnqueueTaskRequest{TaskId: id}); err != nil {
			t.Fatalf("EnqueueTask: %v", err)
		}
	}
	resp, err := client.ClaimTasks(context.Background(), &pb.ClaimTasksRequest{
		Worker: "claimer", MaxTasks: 2, Namespace: namespace, LeaseDuration: durationpb.New(30 * time.Second),
		RequestId: uniqueID("claim"),
	})
	if err != nil {
		t.Fatalf("ClaimTasks: %v", err)
	}
	var claimed []string
	for _, claim := range resp.GetClaims() {
		task := claim.GetTask()
		if task.GetState() != pb.TaskState_TASK_STATE_RUNNING || task.GetWorker() != "claimer" || claim.GetEvent().GetAction() != pb.TaskAction_TASK_ACTION_START {
			t.Fatalf("want RUNNING under claimer with a StartTask event, got %v / %v", task, claim.GetEvent())
		}
		claimed = append(claimed, task.GetTaskId())
	}
	slices.Sort(claimed)
	oldest := slices.Sorted(slices.Values(readyOrder[:2]))
	if !slices.Equal(claimed, oldest) {
		t.Fatalf("want the two oldest-ready tasks %v, got %v", readyOrder[:2], claimed)
	}
}

func TestClaimTasksLongPollsUntilATaskBecomesReady(t *testing.T) {
	client := connect(t)
	namespace := uniqueNamespace("claim")
	created, err := client.CreateTask(context.Background(), &pb.CreateTaskRequest{TaskId: uniqueID("lp"), Namespace: namespace})
	if err != nil {
		t.Fatalf("CreateTask: %v", err)
	}
	id := created.GetTask().GetTaskId()
	go func() {
		time.Sleep(300 * time.Millisecond)
		_, _ = client.EnqueueTask(context.Background(), &pb.EnqueueTaskRequest{TaskId: id})
	}()
	resp, err := client.ClaimTasks(context.Background(), &pb.ClaimTasksRequest{
		Worker: "poller", MaxTasks: 5, Namespace: namespace, Wait: durationpb.New(20 * time.Second),
	})
	if err != nil {
		t.Fatalf("ClaimTasks: %v", err)
	}
	if len(resp.GetClaims()) != 1 || resp.GetClaims()[0].GetTask().GetTaskId() != id {
		t.Fatalf("want the task enqueued during the wait, got %v", resp.GetClaims())
	}
}
