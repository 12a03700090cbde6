package tasklife

import (
	"fmt"
	"log/slog"
	"sync/atomic"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// reachability says when the worker loses the server and when it has it back: one log line
// each, not one per failed call, however many claims, reports and heartbeats are retried
// meanwhile.
type reachability struct {
	log     *slog.Logger
	address string
	lost    atomic.Bool
}

// note takes the outcome of a call (err nil: success) and tells whether err means the
// server could not be reached: UNAVAILABLE, or no answer in time. The first such error of
// an outage is logged, and so is the first answer after it.
func (r *reachability) note(err error) (unreachable bool) {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded:
		if r.lost.CompareAndSwap(false, true) {
			r.log.Error(fmt.Sprintf("cannot reach the Tasklife server at %s: %v; retrying until it answers", r.address, err),
				"address", r.address, "error", err)
		}
		return true
	case codes.Canceled: // the worker's own cancellation says nothing about the server
		return false
	}
	if r.lost.Load() && r.lost.CompareAndSwap(true, false) {
		r.log.Info(fmt.Sprintf("reached the Tasklife server at %s again", r.address), "address", r.address)
	}
	return false
}
