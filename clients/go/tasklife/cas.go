package tasklife

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// TransitionRequest is satisfied by the request of every transition RPC
// (EnqueueTaskRequest, StartTaskRequest, ... AbandonTaskRequest).
type TransitionRequest interface {
	proto.Message
	GetTaskId() string
	GetExpectedVersion() int64
}

// A CASOption configures [CompareAndSwap].
type CASOption func(*casSettings)

type casSettings struct {
	maxAttempts int
	recheck     func(*pb.Task) error
}

// RetryOnVersionMismatch lets [CompareAndSwap] make up to maxAttempts calls in all: after
// each VERSION_MISMATCH but the last it re-reads the task and retries with its current
// version. Without this option there is exactly one call.
func RetryOnVersionMismatch(maxAttempts int) CASOption {
	return func(s *casSettings) { s.maxAttempts = maxAttempts }
}

// RecheckBeforeRetry has [CompareAndSwap] pass each re-read task to decide before
// retrying: a non-nil error stops the retries and is returned. Use it when the move only
// makes sense from some states or while some condition holds.
func RecheckBeforeRetry(decide func(current *pb.Task) error) CASOption {
	return func(s *casSettings) { s.recheck = decide }
}

// CompareAndSwap makes the transition call(ctx, req), which only happens if the task is
// still at req's expected_version. With [RetryOnVersionMismatch] a VERSION_MISMATCH is
// not final: the task is re-read with GetTask, the request is sent again with the fresh
// expected_version, up to the given number of attempts.
//
// Retrying keeps req's request_id: a call that failed wrote nothing, so the id is still
// unused. req itself is never modified. Any other error ends the attempts at once.
//
//	resp, err := tasklife.CompareAndSwap(ctx, client, client.StartTask,
//		&tasklifev1.StartTaskRequest{TaskId: id, ExpectedVersion: proto.Int64(v)},
//		tasklife.RetryOnVersionMismatch(3))
func CompareAndSwap[Req TransitionRequest, Resp any](
	ctx context.Context,
	c *Client,
	call func(context.Context, Req) (Resp, error),
	req Req,
	opts ...CASOption,
) (Resp, error) {
	var zero Resp
	s := casSettings{maxAttempts: 1}
	for _, opt := range opts {
		opt(&s)
	}
	field := req.ProtoReflect().Descriptor().Fields().ByName("expected_version")
	if field == nil || !req.ProtoReflect().Has(field) {
		return zero, fmt.Errorf("tasklife: CompareAndSwap needs a %s with expected_version set",
			req.ProtoReflect().Descriptor().FullName())
	}
	req = proto.Clone(req).(Req)
	for attempt := 1; ; attempt++ {
		resp, err := call(ctx, req)
		var mismatch *VersionMismatchError
		if err == nil || !errors.As(err, &mismatch) || attempt >= s.maxAttempts {
			return resp, err
		}
		current, err := c.GetTask(ctx, &pb.GetTaskRequest{TaskId: req.GetTaskId()})
		if err != nil {
			return zero, err
		}
		if s.recheck != nil {
			if err := s.recheck(current.GetTask()); err != nil {
				return zero, err
			}
		}
		req.ProtoReflect().Set(field, protoreflect.ValueOfInt64(current.GetTask().GetVersion()))
	}
}
