// Command reference-worker runs a tasklife.Worker whose handler sleeps --handler-ms and
// returns, for the cross-language queue test and `make bench` (docs/how-to/workers.md).
// Every client's reference worker takes the same flags and prints the same summary: on
// stop (SIGTERM, SIGINT, or --idle-exit-ms without claiming anything) one JSON line on
// stdout, {"worker", "claimed", "completed", "failed", "dropped", "heartbeat_failures",
// "seconds"}, where seconds run from the first claim to the last report. Logs go to stderr.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// config is what the flags say.
type config struct {
	address     string
	namespace   string
	worker      string
	concurrency int
	handler     time.Duration
	lease       time.Duration
	idleExit    time.Duration // 0: never
	labels      map[string]string
}

// summary is the one JSON line printed on stop.
type summary struct {
	Worker            string  `json:"worker"`
	Claimed           int64   `json:"claimed"`
	Completed         int64   `json:"completed"`
	Failed            int64   `json:"failed"`
	Dropped           int64   `json:"dropped"`
	HeartbeatFailures int64   `json:"heartbeat_failures"`
	Seconds           float64 `json:"seconds"`
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stdout)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "reference-worker:", err)
		os.Exit(2)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "reference-worker:", err)
		os.Exit(1)
	}
}

// parseFlags reads the shared flags; --help prints the usage to usage and returns flag.ErrHelp.
func parseFlags(args []string, usage io.Writer) (config, error) {
	var cfg config
	var handlerMS, leaseMS, idleExitMS int
	var labels string
	flags := flag.NewFlagSet("reference-worker", flag.ContinueOnError)
	flags.SetOutput(usage)
	flags.StringVar(&cfg.address, "address", "127.0.0.1:50051", "`HOST:PORT` of the Tasklife server")
	flags.StringVar(&cfg.namespace, "namespace", "", "claim only tasks of this namespace (`NS`; default: every one reachable)")
	flags.StringVar(&cfg.worker, "worker", "", "worker `NAME` recorded on the tasks (default: <hostname>-<pid>-<random>)")
	flags.IntVar(&cfg.concurrency, "concurrency", tasklife.DefaultWorkerConcurrency, "handlers running at once (`N`)")
	flags.IntVar(&handlerMS, "handler-ms", 0, "how long each handler sleeps (`MS`; 0: returns at once)")
	flags.IntVar(&leaseMS, "lease-ms", int(tasklife.DefaultWorkerLeaseDuration/time.Millisecond), "lease of each claimed task (`MS`)")
	flags.IntVar(&idleExitMS, "idle-exit-ms", 0, "stop after this long with nothing claimed or running (`MS`; 0: never)")
	flags.StringVar(&labels, "labels", "", "claim only tasks with these labels (`k=v,k2=v2`)")
	flags.Usage = func() {
		fmt.Fprintln(usage, "usage: reference-worker.sh --address HOST:PORT --namespace NS --worker NAME --concurrency N\n"+
			"         --handler-ms MS --lease-ms MS [--idle-exit-ms MS] [--labels k=v,k2=v2]")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return cfg, err
	}
	if flags.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", flags.Args())
	}
	if handlerMS < 0 || leaseMS <= 0 || idleExitMS < 0 {
		return cfg, errors.New("--handler-ms and --idle-exit-ms must not be negative, --lease-ms must be positive")
	}
	cfg.handler = time.Duration(handlerMS) * time.Millisecond
	cfg.lease = time.Duration(leaseMS) * time.Millisecond
	cfg.idleExit = time.Duration(idleExitMS) * time.Millisecond
	var err error
	cfg.labels, err = parseLabels(labels)
	return cfg, err
}

// parseLabels reads "k=v,k2=v2"; "" is no labels.
func parseLabels(s string) (map[string]string, error) {
	labels := map[string]string{}
	if s == "" {
		return labels, nil
	}
	for _, pair := range strings.Split(s, ",") {
		key, value, ok := strings.Cut(pair, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("--labels: %q is not key=value", pair)
		}
		labels[key] = value
	}
	return labels, nil
}

func run(cfg config) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	client, err := tasklife.Connect(cfg.address)
	if err != nil {
		return err
	}
	defer client.Close()

	activity := newActivity()
	worker, err := tasklife.NewWorker(client, sleepFor(cfg.handler), tasklife.WorkerOptions{
		Namespace:     cfg.namespace,
		Labels:        cfg.labels,
		Concurrency:   cfg.concurrency,
		LeaseDuration: cfg.lease,
		Name:          cfg.worker,
		Logger:        logger,
		Hooks:         activity.hooks(),
	})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if cfg.idleExit > 0 {
		go activity.stopWhenIdle(ctx, cfg.idleExit, worker.Stop)
	}
	runErr := worker.Run(ctx)

	m := worker.Metrics()
	line, err := json.Marshal(summary{
		Worker: worker.Name(), Claimed: m.Claimed, Completed: m.Completed, Failed: m.Failed,
		Dropped: m.Dropped, HeartbeatFailures: m.HeartbeatFailures, Seconds: activity.seconds(),
	})
	if err != nil {
		return err
	}
	fmt.Println(string(line))
	return runErr
}

// sleepFor is the handler: sleep d (stopping early if cancelled), then succeed.
func sleepFor(d time.Duration) tasklife.Handler {
	return func(ctx context.Context, _ *pb.Task) error {
		if d <= 0 {
			return nil
		}
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// activity follows the worker through its hooks: when it first claimed, when it last
// resolved a task, and how many tasks it holds.
type activity struct {
	mu          sync.Mutex
	firstClaim  time.Time
	lastReport  time.Time
	lastChange  time.Time
	outstanding int
}

func newActivity() *activity { return &activity{lastChange: time.Now()} }

func (a *activity) hooks() tasklife.WorkerHooks {
	resolved := func(*pb.Task) { a.record(-1) }
	return tasklife.WorkerHooks{
		Claimed:      func(*pb.Task) { a.record(+1) },
		Completed:    resolved,
		Failed:       func(t *pb.Task, _ string) { resolved(t) },
		Dropped:      func(t *pb.Task, _ error) { resolved(t) },
		ReportFailed: func(t *pb.Task, _ error) { resolved(t) },
	}
}

// record counts a claim (+1) or a resolution (-1).
func (a *activity) record(delta int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	a.outstanding += delta
	a.lastChange = now
	if delta > 0 && a.firstClaim.IsZero() {
		a.firstClaim = now
	}
	if delta < 0 {
		a.lastReport = now
	}
}

// idleFor is how long the worker has held nothing and claimed nothing (0 while it holds a task).
func (a *activity) idleFor() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.outstanding > 0 {
		return 0
	}
	return time.Since(a.lastChange)
}

// stopWhenIdle calls stop once the worker has been idle for idle.
func (a *activity) stopWhenIdle(ctx context.Context, idle time.Duration, stop func()) {
	ticker := time.NewTicker(min(max(idle/10, 10*time.Millisecond), 250*time.Millisecond))
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			if a.idleFor() >= idle {
				stop()
				return
			}
		}
	}
}

// seconds from the first claim to the last report, to the millisecond; 0 if nothing was claimed.
func (a *activity) seconds() float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.firstClaim.IsZero() || a.lastReport.Before(a.firstClaim) {
		return 0
	}
	return math.Round(a.lastReport.Sub(a.firstClaim).Seconds()*1000) / 1000
}
