package tasklife

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"
	"unicode"
	"unicode/utf8"
)

// The defaults of [WorkerOptions] (docs/how-to/workers.md: the same in every client).
const (
	DefaultWorkerConcurrency     = 10
	DefaultWorkerLeaseDuration   = 30 * time.Second
	DefaultWorkerClaimWait       = 10 * time.Second
	DefaultWorkerGracePeriod     = 30 * time.Second
	DefaultWorkerReportBatchSize = 100
	// MaxWorkerClaimWait is the longest long poll the server accepts.
	MaxWorkerClaimWait = 60 * time.Second
	// maxBatch is the most tasks one ClaimTasks or BatchTransitionTasks call may carry.
	maxBatch       = 1000
	maxWorkerName  = 128
	defaultBackoff = 50 * time.Millisecond
	defaultMaxWait = 5 * time.Second
	// minReportFlush is the least time a stop gives its last reports after the grace period.
	minReportFlush = 5 * time.Second
)

// WorkerOptions configure a [Worker]. The zero value of every field means its default.
type WorkerOptions struct {
	// Namespace claims only tasks of this namespace; "": every namespace the caller reaches.
	Namespace string
	// Labels claims only tasks carrying every one of these labels with these values.
	Labels map[string]string
	// Concurrency is the most handlers running at once (default 10, at most 1000). A slot
	// frees when its handler returns, while the outcome may still await its report, so the
	// worker holds at most twice as many tasks.
	Concurrency int
	// LeaseDuration is the lease each claimed task gets and each heartbeat renews
	// (default 30 s, at least 100 ms).
	LeaseDuration time.Duration
	// HeartbeatInterval is how often each running task's lease is renewed
	// (default LeaseDuration/3; must be shorter than LeaseDuration).
	HeartbeatInterval time.Duration
	// ClaimWait is how long one ClaimTasks call long-polls for ready work (default 10 s,
	// at most 60 s).
	ClaimWait time.Duration
	// Name is the worker recorded on every task it runs: 1 to 128 printable characters
	// (default "<hostname>-<pid>-<6 random hex digits>").
	Name string
	// Operator is the operator recorded on every move the worker makes (its claims, its
	// CompleteTask and FailTask reports). Empty: the worker's Name, unless the client has an
	// operator of its own ([WithOperator]) or credentials ([WithBearerToken], a client
	// certificate, [WithPerRPCCredentials]); then the worker sends none, so that the server
	// records the client's operator, or the authenticated principal (a server that
	// authenticates refuses any other operator).
	Operator string
	// GracePeriod is how long a stop waits for handlers in flight before cancelling them
	// and failing their tasks (default 30 s).
	GracePeriod time.Duration
	// ReportBatchSize is the most outcomes one BatchTransitionTasks call reports
	// (default 100, at most 1000).
	ReportBatchSize int
	// Backoff paces retries after transient errors (claims and reports).
	Backoff Backoff
	// Logger receives the worker's log lines (default slog.Default()).
	Logger *slog.Logger
	// Hooks are called as tasks move through the worker.
	Hooks WorkerHooks
}

// Backoff is exponential backoff with full jitter: before retry n (from 0) the worker
// sleeps a random time in [0, min(Max, Initial*2^n)).
type Backoff struct {
	Initial time.Duration // default 50 ms
	Max     time.Duration // default 5 s
}

// withDefaults returns o with every zero field set to its default, or an error naming the
// first field that is out of range.
func (o WorkerOptions) withDefaults() (WorkerOptions, error) {
	if o.Concurrency == 0 {
		o.Concurrency = DefaultWorkerConcurrency
	}
	if o.LeaseDuration == 0 {
		o.LeaseDuration = DefaultWorkerLeaseDuration
	}
	if o.HeartbeatInterval == 0 {
		o.HeartbeatInterval = o.LeaseDuration / 3
	}
	if o.ClaimWait == 0 {
		o.ClaimWait = DefaultWorkerClaimWait
	}
	if o.Name == "" {
		o.Name = defaultWorkerName()
	}
	if o.GracePeriod == 0 {
		o.GracePeriod = DefaultWorkerGracePeriod
	}
	if o.ReportBatchSize == 0 {
		o.ReportBatchSize = DefaultWorkerReportBatchSize
	}
	if o.Backoff.Initial == 0 {
		o.Backoff.Initial = defaultBackoff
	}
	if o.Backoff.Max == 0 {
		o.Backoff.Max = defaultMaxWait
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o, o.validate()
}

func (o WorkerOptions) validate() error {
	switch {
	case o.Concurrency < 1 || o.Concurrency > maxBatch:
		return fmt.Errorf("tasklife: WorkerOptions.Concurrency %d is not between 1 and %d", o.Concurrency, maxBatch)
	case o.LeaseDuration < 100*time.Millisecond:
		return fmt.Errorf("tasklife: WorkerOptions.LeaseDuration %s is shorter than 100ms", o.LeaseDuration)
	case o.HeartbeatInterval <= 0 || o.HeartbeatInterval >= o.LeaseDuration:
		return fmt.Errorf("tasklife: WorkerOptions.HeartbeatInterval %s is not between 0 and the lease (%s)", o.HeartbeatInterval, o.LeaseDuration)
	case o.ClaimWait < 0 || o.ClaimWait > MaxWorkerClaimWait:
		return fmt.Errorf("tasklife: WorkerOptions.ClaimWait %s is not between 0 and %s", o.ClaimWait, MaxWorkerClaimWait)
	case o.GracePeriod < 0:
		return fmt.Errorf("tasklife: WorkerOptions.GracePeriod %s is negative", o.GracePeriod)
	case o.ReportBatchSize < 1 || o.ReportBatchSize > maxBatch:
		return fmt.Errorf("tasklife: WorkerOptions.ReportBatchSize %d is not between 1 and %d", o.ReportBatchSize, maxBatch)
	case o.Backoff.Initial < 0 || o.Backoff.Max < o.Backoff.Initial:
		return fmt.Errorf("tasklife: WorkerOptions.Backoff %+v: want 0 <= Initial <= Max", o.Backoff)
	}
	return validWorkerName(o.Name)
}

// validWorkerName applies the server's rule for StartTaskRequest.worker, so a bad name
// fails NewWorker instead of every claim.
func validWorkerName(name string) error {
	if len(name) > maxWorkerName {
		return fmt.Errorf("tasklife: worker name %.20q... is longer than %d characters", name, maxWorkerName)
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("tasklife: worker name %q is not UTF-8", name)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("tasklife: worker name %q has a non-printable character", name)
		}
	}
	if name == "" {
		return errors.New("tasklife: worker name is empty")
	}
	return nil
}

// defaultWorkerName is "<hostname>-<pid>-<6 random hex digits>": unique per process, and
// still telling which machine and process ran a task.
func defaultWorkerName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "worker"
	}
	random := make([]byte, 3)
	_, _ = rand.Read(random)
	name := fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(random))
	if len(name) > maxWorkerName {
		name = name[len(name)-maxWorkerName:]
	}
	return name
}

// workerOperator is the operator the worker sends on its moves; "" sends none.
func workerOperator(client *Client, opts WorkerOptions) string {
	switch {
	case opts.Operator != "":
		return opts.Operator
	case client.settings.identifiesCaller():
		return ""
	}
	return opts.Name
}
