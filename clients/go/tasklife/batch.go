package tasklife

import (
	"fmt"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/status"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// BatchTransitionRequest is the request of any transition RPC, each of which can be an
// item of BatchTransitionTasks.
type BatchTransitionRequest interface {
	*pb.EnqueueTaskRequest | *pb.StartTaskRequest | *pb.CompleteTaskRequest | *pb.FailTaskRequest |
		*pb.RetryTaskRequest | *pb.PauseTaskRequest | *pb.ResumeTaskRequest | *pb.KillTaskRequest |
		*pb.AbandonTaskRequest
}

// TransitionItem wraps one transition request as an item of BatchTransitionTasks:
//
//	items := []*pb.BatchTransitionTasksItem{
//		tasklife.TransitionItem(&pb.EnqueueTaskRequest{TaskId: "a"}),
//		tasklife.TransitionItem(&pb.CompleteTaskRequest{TaskId: "b", Worker: "w1"}),
//	}
func TransitionItem[R BatchTransitionRequest](req R) *pb.BatchTransitionTasksItem {
	item := &pb.BatchTransitionTasksItem{}
	switch r := any(req).(type) {
	case *pb.EnqueueTaskRequest:
		item.Request = &pb.BatchTransitionTasksItem_Enqueue{Enqueue: r}
	case *pb.StartTaskRequest:
		item.Request = &pb.BatchTransitionTasksItem_Start{Start: r}
	case *pb.CompleteTaskRequest:
		item.Request = &pb.BatchTransitionTasksItem_Complete{Complete: r}
	case *pb.FailTaskRequest:
		item.Request = &pb.BatchTransitionTasksItem_Fail{Fail: r}
	case *pb.RetryTaskRequest:
		item.Request = &pb.BatchTransitionTasksItem_Retry{Retry: r}
	case *pb.PauseTaskRequest:
		item.Request = &pb.BatchTransitionTasksItem_Pause{Pause: r}
	case *pb.ResumeTaskRequest:
		item.Request = &pb.BatchTransitionTasksItem_Resume{Resume: r}
	case *pb.KillTaskRequest:
		item.Request = &pb.BatchTransitionTasksItem_Kill{Kill: r}
	case *pb.AbandonTaskRequest:
		item.Request = &pb.BatchTransitionTasksItem_Abandon{Abandon: r}
	default: // unreachable: the type set of BatchTransitionRequest is exactly the cases above
		panic(fmt.Sprintf("tasklife: TransitionItem: unexpected request type %T", req))
	}
	return item
}

// BatchResult is a result of BatchCreateTasks or BatchTransitionTasks.
type BatchResult interface {
	GetError() *spb.Status
}

// ResultError is a batch item's refusal as the typed error its single RPC would have
// returned (an [*InvalidTransitionError], [*NotFoundError], ... see [DecodeError]), or nil
// when the item succeeded.
func ResultError(result BatchResult) error {
	st := result.GetError()
	if st == nil {
		return nil
	}
	return DecodeError(status.ErrorProto(st))
}
