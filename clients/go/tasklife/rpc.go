// One method per RPC of tasklife.v1.TaskService, all alike on purpose: each applies the
// client's defaults (deadline, operator metadata) and returns typed errors (DecodeError).

package tasklife

import (
	"context"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// CreateTask creates a task in TASK_STATE_CREATED at version 1, or returns the existing
// task when the same id is created again with the same spec.
func (c *Client) CreateTask(ctx context.Context, req *pb.CreateTaskRequest) (*pb.CreateTaskResponse, error) {
	return unary(ctx, c, c.stub.CreateTask, req)
}

// GetTask returns one task as it stands now.
func (c *Client) GetTask(ctx context.Context, req *pb.GetTaskRequest) (*pb.GetTaskResponse, error) {
	return unary(ctx, c, c.stub.GetTask, req)
}

// ListTasks returns one page of tasks; [Client.AllTasks] follows the pages.
func (c *Client) ListTasks(ctx context.Context, req *pb.ListTasksRequest) (*pb.ListTasksResponse, error) {
	return unary(ctx, c, c.stub.ListTasks, req)
}

// CountTasks counts the tasks matching ListTasks' filters, grouped by state, namespace or
// label values, all in one snapshot of the database.
func (c *Client) CountTasks(ctx context.Context, req *pb.CountTasksRequest) (*pb.CountTasksResponse, error) {
	return unary(ctx, c, c.stub.CountTasks, req)
}

// StartBulkOperation starts a bulk operation: ListTasks' filters resolved once, in one
// snapshot, and an action applied to each matching task by the server's runners.
func (c *Client) StartBulkOperation(ctx context.Context, req *pb.StartBulkOperationRequest) (*pb.BulkOperation, error) {
	return unary(ctx, c, c.stub.StartBulkOperation, req)
}

// GetBulkOperation returns a bulk operation and its progress.
func (c *Client) GetBulkOperation(ctx context.Context, req *pb.GetBulkOperationRequest) (*pb.BulkOperation, error) {
	return unary(ctx, c, c.stub.GetBulkOperation, req)
}

// ListBulkOperations returns one page of bulk operations, newest first.
func (c *Client) ListBulkOperations(ctx context.Context, req *pb.ListBulkOperationsRequest) (*pb.ListBulkOperationsResponse, error) {
	return unary(ctx, c, c.stub.ListBulkOperations, req)
}

// CancelBulkOperation stops a running bulk operation; moves already applied stay.
func (c *Client) CancelBulkOperation(ctx context.Context, req *pb.CancelBulkOperationRequest) (*pb.BulkOperation, error) {
	return unary(ctx, c, c.stub.CancelBulkOperation, req)
}

// SetConcurrencyLimit sets (or, with Clear, removes) the limit of a concurrency key: at most
// MaxRunning of its tasks run at once in the namespace. Role admin.
func (c *Client) SetConcurrencyLimit(ctx context.Context, req *pb.SetConcurrencyLimitRequest) (*pb.SetConcurrencyLimitResponse, error) {
	return unary(ctx, c, c.stub.SetConcurrencyLimit, req)
}

// ListConcurrencyLimits returns the limits set, each with its key's running count.
func (c *Client) ListConcurrencyLimits(ctx context.Context, req *pb.ListConcurrencyLimitsRequest) (*pb.ListConcurrencyLimitsResponse, error) {
	return unary(ctx, c, c.stub.ListConcurrencyLimits, req)
}

// ListTaskEvents returns one page of a task's history, oldest first;
// [Client.AllTaskEvents] follows the pages.
func (c *Client) ListTaskEvents(ctx context.Context, req *pb.ListTaskEventsRequest) (*pb.ListTaskEventsResponse, error) {
	return unary(ctx, c, c.stub.ListTaskEvents, req)
}

// ListTaskAttempts returns one page of a task's attempts, the first first: each start with
// the move that ended it, derived from the history; [Client.AllTaskAttempts] follows the pages.
func (c *Client) ListTaskAttempts(ctx context.Context, req *pb.ListTaskAttemptsRequest) (*pb.ListTaskAttemptsResponse, error) {
	return unary(ctx, c, c.stub.ListTaskAttempts, req)
}

// ListTaskFailures returns one page of the FAIL events across tasks, newest first, with
// every match counted by error type; [Client.AllTaskFailures] follows the pages.
func (c *Client) ListTaskFailures(ctx context.Context, req *pb.ListTaskFailuresRequest) (*pb.ListTaskFailuresResponse, error) {
	return unary(ctx, c, c.stub.ListTaskFailures, req)
}

// CountTaskEvents counts the history's events per time bucket and per action over a
// window (by default the last 60 minutes, per minute), from per-minute counts the server keeps.
func (c *Client) CountTaskEvents(ctx context.Context, req *pb.CountTaskEventsRequest) (*pb.CountTaskEventsResponse, error) {
	return unary(ctx, c, c.stub.CountTaskEvents, req)
}

// GetStateMachine describes every state, action and allowed transition.
func (c *Client) GetStateMachine(ctx context.Context, req *pb.GetStateMachineRequest) (*pb.GetStateMachineResponse, error) {
	return unary(ctx, c, c.stub.GetStateMachine, req)
}

// Heartbeat extends the lease of a running task held by a worker.
func (c *Client) Heartbeat(ctx context.Context, req *pb.HeartbeatRequest) (*pb.HeartbeatResponse, error) {
	return unary(ctx, c, c.stub.Heartbeat, req)
}

// EnqueueTask moves a task from CREATED or RETRYING to READY,
// as a compare-and-swap when req.ExpectedVersion is set.
func (c *Client) EnqueueTask(ctx context.Context, req *pb.EnqueueTaskRequest) (*pb.EnqueueTaskResponse, error) {
	return unary(ctx, c, c.stub.EnqueueTask, req)
}

// StartTask moves a task from READY to RUNNING,
// as a compare-and-swap when req.ExpectedVersion is set.
func (c *Client) StartTask(ctx context.Context, req *pb.StartTaskRequest) (*pb.StartTaskResponse, error) {
	return unary(ctx, c, c.stub.StartTask, req)
}

// CompleteTask moves a task from RUNNING to SUCCEEDED,
// as a compare-and-swap when req.ExpectedVersion is set.
func (c *Client) CompleteTask(ctx context.Context, req *pb.CompleteTaskRequest) (*pb.CompleteTaskResponse, error) {
	return unary(ctx, c, c.stub.CompleteTask, req)
}

// FailTask moves a task from RUNNING to FAILED,
// as a compare-and-swap when req.ExpectedVersion is set.
func (c *Client) FailTask(ctx context.Context, req *pb.FailTaskRequest) (*pb.FailTaskResponse, error) {
	return unary(ctx, c, c.stub.FailTask, req)
}

// RetryTask moves a task from FAILED to RETRYING,
// as a compare-and-swap when req.ExpectedVersion is set.
func (c *Client) RetryTask(ctx context.Context, req *pb.RetryTaskRequest) (*pb.RetryTaskResponse, error) {
	return unary(ctx, c, c.stub.RetryTask, req)
}

// PauseTask moves a task from READY or RUNNING to PAUSED,
// as a compare-and-swap when req.ExpectedVersion is set.
func (c *Client) PauseTask(ctx context.Context, req *pb.PauseTaskRequest) (*pb.PauseTaskResponse, error) {
	return unary(ctx, c, c.stub.PauseTask, req)
}

// ResumeTask moves a task from PAUSED to READY,
// as a compare-and-swap when req.ExpectedVersion is set.
func (c *Client) ResumeTask(ctx context.Context, req *pb.ResumeTaskRequest) (*pb.ResumeTaskResponse, error) {
	return unary(ctx, c, c.stub.ResumeTask, req)
}

// KillTask moves a task from RUNNING or FAILED to KILLED,
// as a compare-and-swap when req.ExpectedVersion is set.
func (c *Client) KillTask(ctx context.Context, req *pb.KillTaskRequest) (*pb.KillTaskResponse, error) {
	return unary(ctx, c, c.stub.KillTask, req)
}

// AbandonTask moves a task from READY, PAUSED, SUCCEEDED, FAILED or KILLED to ABANDONED,
// as a compare-and-swap when req.ExpectedVersion is set.
func (c *Client) AbandonTask(ctx context.Context, req *pb.AbandonTaskRequest) (*pb.AbandonTaskResponse, error) {
	return unary(ctx, c, c.stub.AbandonTask, req)
}

// BatchCreateTasks creates up to 1000 tasks in one call, each answered as CreateTask would
// answer it, in request order. A refused item is a result whose Error is set (read it
// with [ResultError]); the returned error is for the whole call (BATCH_TOO_LARGE, say).
func (c *Client) BatchCreateTasks(ctx context.Context, req *pb.BatchCreateTasksRequest) (*pb.BatchCreateTasksResponse, error) {
	return unary(ctx, c, c.stub.BatchCreateTasks, req)
}

// BatchTransitionTasks applies up to 1000 transitions in one call (build the items with
// [TransitionItem]), each answered as its single RPC would answer it, in request order. A
// refused item is a result whose Error is set (read it with [ResultError]); the returned
// error is for the whole call.
func (c *Client) BatchTransitionTasks(ctx context.Context, req *pb.BatchTransitionTasksRequest) (*pb.BatchTransitionTasksResponse, error) {
	return unary(ctx, c, c.stub.BatchTransitionTasks, req)
}

// ClaimTasks moves up to req.MaxTasks READY tasks to RUNNING for req.Worker, long-polling
// up to req.Wait when none is ready. The default deadline (when ctx has none) is the
// client's default timeout plus req.Wait, so a long poll never runs out of time.
func (c *Client) ClaimTasks(ctx context.Context, req *pb.ClaimTasksRequest) (*pb.ClaimTasksResponse, error) {
	if _, has := ctx.Deadline(); !has && c.settings.defaultTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.settings.defaultTimeout+req.GetWait().AsDuration())
		defer cancel()
	}
	return unary(ctx, c, c.stub.ClaimTasks, req)
}
