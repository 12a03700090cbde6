package tasklife

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// maxReportBytes bounds the encoded items of one report call, well under the server's
// default message limit (4 MiB), so that outcomes carrying results (up to 256 KiB each by
// default) do not add up to a call the server refuses as a whole. An outcome larger than
// this goes alone.
const maxReportBytes = 1 << 20

// reportOutcomes sends decided outcomes with BatchTransitionTasks until the outcomes
// channel is closed and drained. Each call takes whatever is waiting (up to the batch
// size and maxReportBytes) as soon as the previous call is answered: no artificial delay,
// and outcomes that finish together share a call.
func (w *Worker) reportOutcomes(ctx context.Context) {
	batch := make([]*outcome, 0, w.opts.ReportBatchSize)
	var next *outcome // taken from the channel for the last call, but it did not fit
	for {
		if next == nil {
			o, ok := <-w.outcomes
			if !ok {
				return
			}
			next = o
		}
		batch, next = w.takeWaiting(append(batch[:0], next))
		w.send(ctx, batch)
	}
}

// takeWaiting appends the outcomes already waiting, up to the batch size and
// maxReportBytes; it also returns the outcome it took that did not fit, if any.
func (w *Worker) takeWaiting(batch []*outcome) ([]*outcome, *outcome) {
	size := 0
	for _, o := range batch {
		size += o.size
	}
	for len(batch) < w.opts.ReportBatchSize {
		select {
		case o, ok := <-w.outcomes:
			if !ok {
				return batch, nil
			}
			if size+o.size > maxReportBytes {
				return batch, o
			}
			batch, size = append(batch, o), size+o.size
		default:
			return batch, nil
		}
	}
	return batch, nil
}

// send reports one batch, and what the server's refusals call for instead, then lets go of
// the batch's jobs.
func (w *Worker) send(ctx context.Context, batch []*outcome) {
	w.deliver(ctx, batch)
	w.reported(batch)
}

// deliver reports outcomes with BatchTransitionTasks, retrying the whole call after a
// transient error with the same items (so the same request_ids: a report whose answer was
// lost is not recorded twice), until ctx ends. An item refused as invalid is replaced by
// the outcome its refusal calls for (a completion whose result was refused, by a failure),
// delivered in turn; a call too large for the server is split.
func (w *Worker) deliver(ctx context.Context, batch []*outcome) {
	req := &pb.BatchTransitionTasksRequest{Items: make([]*pb.BatchTransitionTasksItem, len(batch))}
	for i, o := range batch {
		req.Items[i] = o.item
	}
	for attempt := 0; ; attempt++ {
		w.counters.calls.Add(1)
		resp, err := w.client.BatchTransitionTasks(ctx, req)
		unreachable := w.server.note(err)
		if err == nil && len(resp.GetResults()) != len(batch) {
			err = fmt.Errorf("tasklife: BatchTransitionTasks answered %d results for %d items", len(resp.GetResults()), len(batch))
		}
		switch {
		case err == nil:
			var instead []*outcome
			for i, result := range resp.GetResults() {
				if o := w.resolve(batch[i], ResultError(result), result.GetTask()); o != nil {
					instead = append(instead, o)
				}
			}
			if len(instead) > 0 {
				w.deliver(ctx, instead)
			}
			return
		case tooLargeForTheServer(err) && len(batch) > 1:
			half := len(batch) / 2
			w.deliver(ctx, batch[:half])
			w.deliver(ctx, batch[half:])
			return
		case tooLargeForTheServer(err): // the one item is too large: the server refused it
			if o := w.resolve(batch[0], err, nil); o != nil {
				w.deliver(ctx, []*outcome{o})
			}
			return
		case !transient(err) || ctx.Err() != nil:
			w.reportFailedAll(batch, err)
			return
		}
		if !unreachable { // an outage is logged once, by w.server
			w.log.Warn("report failed: retrying with the same request_ids", "error", err, "items", len(batch), "attempt", attempt+1)
		}
		if !sleep(ctx, w.backoff(attempt)) {
			w.reportFailedAll(batch, fmt.Errorf("tasklife: report given up while stopping: %w", err))
			return
		}
	}
}

// resolve accounts for one item's answer (err nil: recorded; task: as the server returned
// it), and returns what to report instead when the server refused the item as invalid.
func (w *Worker) resolve(o *outcome, err error, task *pb.Task) (instead *outcome) {
	switch {
	case err == nil && o.killing:
		w.counters.killed.Add(1)
		if w.opts.Hooks.Killed != nil {
			w.opts.Hooks.Killed(task)
		}
	case err == nil && o.reason == "":
		w.counters.completed.Add(1)
		if w.opts.Hooks.Completed != nil {
			w.opts.Hooks.Completed(task)
		}
	case err == nil:
		w.counters.failed.Add(1)
		if w.opts.Hooks.Failed != nil {
			w.opts.Hooks.Failed(task, o.reason)
		}
	case takenAway(err):
		w.drop(o.job, err, "result dropped")
	case o.instead != nil && refusedAsInvalid(err):
		return o.instead(err)
	default:
		w.reportFailed(o, err)
	}
	return nil
}

// refusedAsInvalid: the server will never accept the item as it is.
func refusedAsInvalid(err error) bool {
	return status.Code(err) == codes.InvalidArgument || tooLargeForTheServer(err)
}

// tooLargeForTheServer: the call was over the server's message limit (gRPC's own
// RESOURCE_EXHAUSTED, which carries no tasklife reason).
func tooLargeForTheServer(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == codes.ResourceExhausted && e.Reason == ""
}

// reportFailedAll accounts for a batch that could not be sent.
func (w *Worker) reportFailedAll(batch []*outcome, err error) {
	for _, o := range batch {
		w.reportFailed(o, err)
	}
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
