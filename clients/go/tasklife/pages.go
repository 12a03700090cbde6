package tasklife

import (
	"context"
	"iter"

	"google.golang.org/protobuf/proto"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// AllTasks ranges over every task req's filters match, following next_page_token
// (req.PageSize is the size of each page). It stops at the first error, which it yields.
func (c *Client) AllTasks(ctx context.Context, req *pb.ListTasksRequest) iter.Seq2[*pb.Task, error] {
	return func(yield func(*pb.Task, error) bool) {
		page := proto.Clone(req).(*pb.ListTasksRequest)
		for {
			resp, err := c.ListTasks(ctx, page)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, task := range resp.GetTasks() {
				if !yield(task, nil) {
					return
				}
			}
			if resp.GetNextPageToken() == "" {
				return
			}
			page.PageToken = resp.GetNextPageToken()
		}
	}
}

// AllTaskEvents ranges over a task's whole history, oldest first, following
// next_page_token (req.PageSize is the size of each page). It stops at the first error,
// which it yields.
func (c *Client) AllTaskEvents(ctx context.Context, req *pb.ListTaskEventsRequest) iter.Seq2[*pb.TaskEvent, error] {
	return func(yield func(*pb.TaskEvent, error) bool) {
		page := proto.Clone(req).(*pb.ListTaskEventsRequest)
		for {
			resp, err := c.ListTaskEvents(ctx, page)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, event := range resp.GetEvents() {
				if !yield(event, nil) {
					return
				}
			}
			if resp.GetNextPageToken() == "" {
				return
			}
			page.PageToken = resp.GetNextPageToken()
		}
	}
}
