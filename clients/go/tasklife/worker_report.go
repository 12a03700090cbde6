package tasklife

import (
	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// reportOutcomes sends decided outcomes with BatchTransitionTasks until the outcomes
// channel is closed and drained. Each call takes whatever is waiting (up to the batch
// size) as soon as the previous call is answered: no artificial delay, and outcomes that
// finish together share a call.
func (w *Worker) reportOutcomes(ctx context.Context) {
	batch := make([]*outcome, 0, w.opts.ReportBatchSize)
	for first := range w.outcomes {
		batch = append(batch[:0], first)
		batch = w.takeWaiting(batch)
		w.send(ctx, batch)
	}
}

// takeWaiting appends the outcomes already waiting, up to the batch size.
func (w *Worker) takeWaiting(batch []*outcome) []*outcome {
	for len(batch) < w.opts.ReportBatchSize {
		select {
		case o, ok := <-w.outcomes:
			if !ok {
				return batch
			}
			batch = append(batch, o)
		default:
			return batch
		}
	}
	return batch
}

// send reports one batch, retrying the whole call after a transient error with the same
// items (so the same request_ids: a report whose answer was lost is not recorded twice),
// until ctx ends.
func (w *Worker) send(ctx context.Context, batch []*outcome) {
	req := &pb.BatchTransitionTasksRequest{Items: make([]*pb.BatchTransitionTasksItem, len(batch))}
	for i, o := range batch {
		req.Items[i] = o.item
	}
	for attempt := 0; ; attempt++ {
		w.counters.calls.Add(1)
		resp, err := w.client.BatchTransitionTasks(ctx, req)
		if err == nil && len(resp.GetResults()) != len(batch) {
			err = fmt.Errorf("tasklife: BatchTransitionTasks answered %d results for %d items", len(resp.GetResults()), len(batch))
		}
		if err == nil {
			for i, result := range resp.GetResults() {
				w.resolve(batch[i], result)
			}
			w.reported(batch)
			return
		}
		if !transient(err) || ctx.Err() != nil {
			w.reportFailedAll(batch, err)
			return
		}
		w.log.Warn("report failed: retrying with the same request_ids", "error", err, "items", len(batch), "attempt", attempt+1)
		if !sleep(ctx, w.backoff(attempt)) {
			w.reportFailedAll(batch, fmt.Errorf("tasklife: report given up while stopping: %w", err))
			return
		}
	}
}

// resolve accounts for one item's answer.
func (w *Worker) resolve(o *outcome, result *pb.BatchTransitionTasksResult) {
	err := ResultError(result)
	switch {
	case err == nil && o.reason == "":
		w.counters.completed.Add(1)
		if w.opts.Hooks.Completed != nil {
			w.opts.Hooks.Completed(result.GetTask())
		}
	case err == nil:
		w.counters.failed.Add(1)
		if w.opts.Hooks.Failed != nil {
			w.opts.Hooks.Failed(result.GetTask(), o.reason)
		}
	case takenAway(err):
		w.drop(o.job, err, "result dropped")
	default:
		w.reportFailed(o, err)
	}
}

// reportFailedAll accounts for a batch that could not be sent.
func (w *Worker) reportFailedAll(batch []*outcome, err error) {
	for _, o := range batch {
		w.reportFailed(o, err)
	}
	w.reported(batch)
}

// reportFailed counts and logs an outcome that could not be recorded.
func (w *Worker) reportFailed(o *outcome, err error) {
	w.counters.reportFailures.Add(1)
	w.log.Error(fmt.Sprintf("task %s: outcome not recorded", o.job.task.GetTaskId()), "error", err)
	if w.opts.Hooks.ReportFailed != nil {
		w.opts.Hooks.ReportFailed(o.job.task, err)
	}
}

// transient: worth retrying unchanged after a pause.
func transient(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted:
		return true
	}
	return false
}
