package tasklife_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// statusError builds the error a gRPC call returns for a status with these details.
func statusError(t *testing.T, code codes.Code, message string, details ...proto.Message) error {
	t.Helper()
	st := status.New(code, message)
	v1 := make([]protoadapt.MessageV1, len(details))
	for i, d := range details {
		v1[i] = protoadapt.MessageV1Of(d)
	}
	st, err := st.WithDetails(v1...)
	if err != nil {
		t.Fatal(err)
	}
	return st.Err()
}

func errorInfo(reason string, metadata map[string]string) *errdetails.ErrorInfo {
	return &errdetails.ErrorInfo{Domain: tasklife.Domain, Reason: reason, Metadata: metadata}
}

func TestAnInvalidTransitionExposesTheCurrentStateAndTheAllowedActions(t *testing.T) {
	err := tasklife.DecodeError(statusError(t, codes.FailedPrecondition, "task 'x' is ready",
		errorInfo("INVALID_TRANSITION", map[string]string{
			"task_id": "x", "current_state": "TASK_STATE_READY", "requested_action": "CompleteTask",
			"allowed_actions": "StartTask,PauseTask,AbandonTask",
		}),
		&errdetails.PreconditionFailure{Violations: []*errdetails.PreconditionFailure_Violation{{Type: "STATE", Subject: "tasks/x"}}}))

	var invalid *tasklife.InvalidTransitionError
	if !errors.As(err, &invalid) {
		t.Fatalf("want *InvalidTransitionError, got %T", err)
	}
	if invalid.TaskID != "x" || invalid.CurrentState != pb.TaskState_TASK_STATE_READY || invalid.RequestedAction != "CompleteTask" ||
		!slices.Equal(invalid.AllowedActions, []string{"StartTask", "PauseTask", "AbandonTask"}) {
		t.Fatalf("decoded %+v", invalid)
	}
	var base *tasklife.Error
	if !errors.As(err, &base) || base.Code != codes.FailedPrecondition || len(base.Details) != 2 {
		t.Fatalf("the generic view is missing or incomplete: %+v", base)
	}
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("status.Code no longer sees the code: %v", status.Code(err))
	}
}

func TestAFinalStateAllowsNoActionsRatherThanOneEmptyAction(t *testing.T) {
	err := tasklife.DecodeError(statusError(t, codes.FailedPrecondition, "final",
		errorInfo("INVALID_TRANSITION", map[string]string{"current_state": "TASK_STATE_ABANDONED", "allowed_actions": ""})))
	var invalid *tasklife.InvalidTransitionError
	if !errors.As(err, &invalid) || invalid.AllowedActions == nil || len(invalid.AllowedActions) != 0 {
		t.Fatalf("want an empty list, got %#v", invalid)
	}
}

func TestAVersionMismatchExposesTheCurrentVersion(t *testing.T) {
	err := tasklife.DecodeError(statusError(t, codes.Aborted, "stale",
		errorInfo("VERSION_MISMATCH", map[string]string{
			"task_id": "x", "expected_version": "1", "current_version": "12", "current_state": "TASK_STATE_RUNNING",
		})))
	var mismatch *tasklife.VersionMismatchError
	if !errors.As(err, &mismatch) {
		t.Fatalf("want *VersionMismatchError, got %T", err)
	}
	if mismatch.ExpectedVersion != 1 || mismatch.CurrentVersion != 12 || mismatch.CurrentState != pb.TaskState_TASK_STATE_RUNNING {
		t.Fatalf("decoded %+v", mismatch)
	}
}

func TestNotFoundNamesTheTask(t *testing.T) {
	err := tasklife.DecodeError(statusError(t, codes.NotFound, "no such task",
		errorInfo("TASK_NOT_FOUND", map[string]string{"task_id": "ghost"}),
		&errdetails.ResourceInfo{ResourceType: "tasklife.v1.Task", ResourceName: "ghost"}))
	var notFound *tasklife.NotFoundError
	if !errors.As(err, &notFound) || notFound.TaskID != "ghost" {
		t.Fatalf("want NotFoundError for ghost, got %#v", err)
	}
}

func TestEveryOtherReasonIsAGenericErrorWithItsMetadata(t *testing.T) {
	err := tasklife.DecodeError(statusError(t, codes.AlreadyExists, "reused",
		errorInfo("REQUEST_ID_REUSED", map[string]string{"task_id": "x", "request_id": "r", "first_action": "StartTask"})))
	var base *tasklife.Error
	if !errors.As(err, &base) {
		t.Fatalf("want *tasklife.Error, got %T", err)
	}
	if base.Code != codes.AlreadyExists || base.Reason != tasklife.ReasonRequestIDReused ||
		base.Metadata["first_action"] != "StartTask" || base.Message != "reused" {
		t.Fatalf("decoded %+v", base)
	}
}

func TestAnErrorInfoOfAnotherDomainIsNotMistakenForTasklifes(t *testing.T) {
	err := tasklife.DecodeError(statusError(t, codes.NotFound, "proxy says no",
		&errdetails.ErrorInfo{Domain: "proxy.example", Reason: "TASK_NOT_FOUND"}))
	var notFound *tasklife.NotFoundError
	var base *tasklife.Error
	if errors.As(err, &notFound) || !errors.As(err, &base) || base.Reason != "" {
		t.Fatalf("want a generic error without reason, got %#v", err)
	}
}

func TestErrorsWithoutAStatusPassThrough(t *testing.T) {
	if err := tasklife.DecodeError(io.EOF); err != io.EOF {
		t.Fatalf("got %v", err)
	}
	if err := tasklife.DecodeError(nil); err != nil {
		t.Fatalf("got %v", err)
	}
}

func TestTheServersErrorsArriveDecoded(t *testing.T) {
	client := connect(t)
	_, err := client.StartTask(context.Background(), &pb.StartTaskRequest{TaskId: "-bad id", ExpectedVersion: proto.Int64(0)})
	var base *tasklife.Error
	if !errors.As(err, &base) || base.Code != codes.InvalidArgument || base.Reason != tasklife.ReasonInvalidRequest {
		t.Fatalf("want INVALID_ARGUMENT / INVALID_REQUEST, got %v", err)
	}
	var fields []string
	for _, violation := range base.BadRequest().GetFieldViolations() {
		fields = append(fields, violation.GetField())
	}
	if !slices.Equal(fields, []string{"task_id", "expected_version"}) || base.Metadata["fields"] != "task_id,expected_version" {
		t.Fatalf("bad request fields %v, metadata %v", fields, base.Metadata)
	}
}

func TestTheDefaultDeadlineAppliesToCallsWithoutOne(t *testing.T) {
	client := connect(t, tasklife.WithDefaultTimeout(time.Nanosecond))
	_, err := client.GetTask(context.Background(), &pb.GetTaskRequest{TaskId: "any"})
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("want DEADLINE_EXCEEDED, got %v", err)
	}
	// A deadline of the caller's own wins over the default.
	ctx := withTimeout(t, 10*time.Second)
	_, err = client.GetTask(ctx, &pb.GetTaskRequest{TaskId: uniqueID("absent")})
	var notFound *tasklife.NotFoundError
	if !errors.As(err, &notFound) {
		t.Fatalf("want NOT_FOUND, got %v", err)
	}
}

func TestWithOperatorIsRecordedWhenTheRequestNamesNone(t *testing.T) {
	client := connect(t, tasklife.WithOperator("nightly-scheduler"))
	resp, err := client.CreateTask(context.Background(), &pb.CreateTaskRequest{TaskId: uniqueID("operator")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetEvent().GetOperator() != "nightly-scheduler" {
		t.Fatalf("operator %q, want nightly-scheduler", resp.GetEvent().GetOperator())
	}
}
