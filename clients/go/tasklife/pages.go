package tasklife

import (
	"context"
	"iter"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// AllTasks ranges over every task req's filters match, following next_page_token
// (req.PageSize is the size of each page). It stops at the first error, which it yields.
func (c *Client) AllTasks(ctx context.Context, req *pb.ListTasksRequest) iter.Seq2[*pb.Task, error] {
	return allPages(ctx, req, c.ListTasks, (*pb.ListTasksResponse).GetTasks)
}

// AllTaskEvents ranges over a task's whole history, oldest first, following
// next_page_token (req.PageSize is the size of each page). It stops at the first error,
// which it yields.
func (c *Client) AllTaskEvents(ctx context.Context, req *pb.ListTaskEventsRequest) iter.Seq2[*pb.TaskEvent, error] {
	return allPages(ctx, req, c.ListTaskEvents, (*pb.ListTaskEventsResponse).GetEvents)
}

// AllTaskAttempts ranges over every attempt of a task, the first first, following
// next_page_token (req.PageSize is the size of each page, req.AsOf is sent with each). It
// stops at the first error, which it yields.
func (c *Client) AllTaskAttempts(ctx context.Context, req *pb.ListTaskAttemptsRequest) iter.Seq2[*pb.TaskAttempt, error] {
	return allPages(ctx, req, c.ListTaskAttempts, (*pb.ListTaskAttemptsResponse).GetAttempts)
}

// AllTaskFailures ranges over every FAIL event req's filters match, newest first, following
// next_page_token (req.PageSize is the size of each page). The counts by error type come
// with each page of [Client.ListTaskFailures]; call it once for them. It stops at the first
// error, which it yields.
func (c *Client) AllTaskFailures(ctx context.Context, req *pb.ListTaskFailuresRequest) iter.Seq2[*pb.TaskEvent, error] {
	return allPages(ctx, req, c.ListTaskFailures, (*pb.ListTaskFailuresResponse).GetFailures)
}

// pagedResponse is a List response: a page of items and the token of the next one.
type pagedResponse interface {
	GetNextPageToken() string
}

// allPages ranges over the items of every page: it calls list with a copy of req (every
// filter kept), then again with page_token set to each next_page_token until it is empty.
func allPages[Req proto.Message, Resp pagedResponse, Item any](
	ctx context.Context, req Req, list func(context.Context, Req) (Resp, error), items func(Resp) []Item,
) iter.Seq2[Item, error] {
	return func(yield func(Item, error) bool) {
		page := proto.Clone(req).(Req)
		token := page.ProtoReflect().Descriptor().Fields().ByName("page_token")
		for {
			resp, err := list(ctx, page)
			if err != nil {
				var zero Item
				yield(zero, err)
				return
			}
			for _, item := range items(resp) {
				if !yield(item, nil) {
					return
				}
			}
			if resp.GetNextPageToken() == "" {
				return
			}
			page.ProtoReflect().Set(token, protoreflect.ValueOfString(resp.GetNextPageToken()))
		}
	}
}
