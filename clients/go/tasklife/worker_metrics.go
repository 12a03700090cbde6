package tasklife

import (
	"sync/atomic"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// WorkerMetrics is a snapshot of a [Worker]'s counters (since it was made) and gauge.
type WorkerMetrics struct {
	Claimed           int64 // tasks claimed
	Completed         int64 // CompleteTask recorded
	Failed            int64 // FailTask recorded (handler errors, panics, stop after the grace period)
	Killed            int64 // KillTask recorded: kills asked with a grace period, confirmed after the handler returned
	Dropped           int64 // results dropped because the task was taken away (lease lost, killed, paused, gone)
	HeartbeatFailures int64 // heartbeats that failed for another reason than the lease being lost
	ReportFailures    int64 // outcomes the server refused for another reason, or that could not be sent
	ReportCalls       int64 // BatchTransitionTasks calls made, retries included
	Running           int64 // handlers running now
}

// WorkerHooks are optional callbacks, called on the worker's own goroutines as things
// happen: keep them quick, and safe for concurrent use. Nil hooks are skipped.
type WorkerHooks struct {
	// Claimed: the task was claimed and its handler is about to run.
	Claimed func(task *pb.Task)
	// Completed: the server recorded CompleteTask; task is as the server returned it.
	Completed func(task *pb.Task)
	// Failed: the server recorded FailTask with reason.
	Failed func(task *pb.Task, reason string)
	// Killed: the server recorded the KillTask confirming a kill asked with a grace period.
	Killed func(task *pb.Task)
	// Dropped: the result was not reported because the task was taken away (why says how).
	Dropped func(task *pb.Task, why error)
	// HeartbeatFailed: a heartbeat failed without the lease being lost; it is retried.
	HeartbeatFailed func(task *pb.Task, err error)
	// ReportFailed: the outcome could not be recorded (err says why).
	ReportFailed func(task *pb.Task, err error)
}

// workerCounters are the live counters behind [WorkerMetrics].
type workerCounters struct {
	claimed, completed, failed, dropped, killed atomic.Int64
	heartbeatFailures, reportFailures, calls    atomic.Int64
	running                                     atomic.Int64
}

func (c *workerCounters) snapshot() WorkerMetrics {
	return WorkerMetrics{
		Claimed:           c.claimed.Load(),
		Completed:         c.completed.Load(),
		Failed:            c.failed.Load(),
		Killed:            c.killed.Load(),
		Dropped:           c.dropped.Load(),
		HeartbeatFailures: c.heartbeatFailures.Load(),
		ReportFailures:    c.reportFailures.Load(),
		ReportCalls:       c.calls.Load(),
		Running:           c.running.Load(),
	}
}
