package tasklife_test

// Examples for the package documentation. Those that need a running server have no Output
// comment: `go test` compiles them but does not run them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// The life of one task: create, enqueue, start with compare-and-swap, an illegal move,
// and a watch that resumes from a cursor.
func Example() {
	ctx := context.Background()
	client, err := tasklife.Connect("127.0.0.1:50051", tasklife.WithDefaultTimeout(5*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	created, err := client.CreateTask(ctx, &pb.CreateTaskRequest{TaskId: "nightly-etl-2026-12-01"})
	if err != nil {
		log.Fatal(err)
	}
	enqueued, err := client.EnqueueTask(ctx, &pb.EnqueueTaskRequest{
		TaskId: "nightly-etl-2026-12-01", ExpectedVersion: proto.Int64(created.GetTask().GetVersion()),
	})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := tasklife.CompareAndSwap(ctx, client, client.StartTask, &pb.StartTaskRequest{
		TaskId: "nightly-etl-2026-12-01", ExpectedVersion: proto.Int64(enqueued.GetTask().GetVersion()),
	}, tasklife.RetryOnVersionMismatch(3)); err != nil {
		log.Fatal(err)
	}

	_, err = client.ResumeTask(ctx, &pb.ResumeTaskRequest{TaskId: "nightly-etl-2026-12-01"})
	var invalid *tasklife.InvalidTransitionError
	if errors.As(err, &invalid) {
		fmt.Println(invalid.CurrentState, "allows", invalid.AllowedActions)
	}

	watcher, err := client.Watch(ctx, &pb.WatchTaskEventsRequest{
		Start:   &pb.WatchTaskEventsRequest_AfterCursor{AfterCursor: enqueued.GetEvent().GetCursor()},
		TaskIds: []string{"nightly-etl-2026-12-01"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer watcher.Close()
	event, err := watcher.Next() // the start: the events after the enqueue
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(event.GetAction(), "->", event.GetToState())
}

// Branching on the error types the client decodes from the status details.
func ExampleDecodeError() {
	client, _ := tasklife.Connect("127.0.0.1:50051")
	_, err := client.StartTask(context.Background(), &pb.StartTaskRequest{TaskId: "t", ExpectedVersion: proto.Int64(3)})

	var (
		invalid  *tasklife.InvalidTransitionError
		mismatch *tasklife.VersionMismatchError
		notFound *tasklife.NotFoundError
		other    *tasklife.Error
	)
	switch {
	case err == nil:
		fmt.Println("started")
	case errors.As(err, &invalid):
		fmt.Println("not now; allowed:", invalid.AllowedActions)
	case errors.As(err, &mismatch):
		fmt.Println("moved meanwhile; now at version", mismatch.CurrentVersion)
	case errors.As(err, &notFound):
		fmt.Println("no task", notFound.TaskID)
	case errors.As(err, &other):
		fmt.Println(other.Code, other.Reason, other.Metadata)
	}
}

// A watch that survives dropped connections and server restarts: it reconnects with the
// last cursor it received, so each event arrives exactly once.
func ExampleWatcher_Events() {
	client, _ := tasklife.Connect("127.0.0.1:50051")
	ctx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()

	watcher, err := client.Watch(ctx, &pb.WatchTaskEventsRequest{
		States: []pb.TaskState{pb.TaskState_TASK_STATE_FAILED},
	})
	if err != nil {
		log.Fatal(err)
	}
	for event, err := range watcher.Events() {
		if err != nil {
			break // the minute is up (or the server refused to resume)
		}
		fmt.Println(event.GetTaskId(), "failed; resume later after", watcher.Cursor())
	}
}

// Paging through a task's history without handling page tokens.
func ExampleClient_AllTaskEvents() {
	client, _ := tasklife.Connect("127.0.0.1:50051")
	for event, err := range client.AllTaskEvents(context.Background(), &pb.ListTaskEventsRequest{TaskId: "t"}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(event.GetVersion(), event.GetFromState(), "->", event.GetToState(), "by", event.GetOperator())
	}
}

// A server that authenticates callers: a bearer token over TLS, and whom the call is for
// in OnBehalfOf (the recorded operator is the token's principal).
func ExampleWithBearerToken() {
	client, err := tasklife.Connect("tasklife.example.com:443",
		tasklife.WithTLSCAFile("/etc/tasklife/ca.pem"),
		tasklife.WithBearerToken(os.Getenv("TASKLIFE_TOKEN")))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	_, err = client.KillTask(context.Background(), &pb.KillTaskRequest{TaskId: "t", OnBehalfOf: "alice@example.com"})
	var (
		unauthenticated *tasklife.UnauthenticatedError
		denied          *tasklife.PermissionDeniedError
	)
	switch {
	case errors.As(err, &unauthenticated):
		fmt.Println("fix the credentials:", unauthenticated.Reason) // CREDENTIALS_MISSING or CREDENTIALS_INVALID
	case errors.As(err, &denied):
		fmt.Println(denied.Principal, "may not:", denied.Reason, denied.Metadata)
	}
}

// A worker for the "images" namespace: four handlers at once, stopped gracefully by SIGTERM
// or Ctrl-C. A handler returning nil completes its task, an error (or a panic) fails it.
func ExampleWorker() {
	client, err := tasklife.Connect("127.0.0.1:50051")
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	worker, err := tasklife.NewWorker(client, func(ctx context.Context, task *pb.Task) error {
		select { // the work; ctx ends if the task is taken away or the grace period of a stop passes
		case <-time.After(time.Second):
			fmt.Println("resized", task.GetLabels()["image"])
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}, tasklife.WorkerOptions{Namespace: "images", Concurrency: 4, GracePeriod: 10 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	if err := worker.Run(ctx); err != nil { // returns once stopped
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", worker.Metrics())
}

// A worker whose handler reads the task's input and returns its result (resizeImage below).
func ExampleNewResultWorker() {
	client, err := tasklife.Connect("127.0.0.1:50051")
	if err != nil {
		log.Fatal(err)
	}
	worker, err := tasklife.NewResultWorker(client, resizeImage, tasklife.WorkerOptions{Namespace: "images", Concurrency: 4})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := worker.Run(ctx); err != nil { // until SIGTERM or Ctrl-C, then a graceful stop
		log.Fatal(err)
	}
}

// resizeImage is a ResultHandler. Any error fails the task; a *tasklife.Failure says how:
// here, an input that cannot be read is not retried.
func resizeImage(ctx context.Context, task *pb.Task) (*pb.TaskPayload, error) {
	var image struct{ Path string }
	if err := json.Unmarshal(task.GetInput().GetData(), &image); err != nil {
		return nil, &tasklife.Failure{Type: "BadInput", NonRetryable: true, Err: err}
	}
	size, err := resize(ctx, image.Path) // an error of its own fails the task too, and may be retried
	if err != nil {
		return nil, fmt.Errorf("resize %s: %w", image.Path, err)
	}
	return tasklife.JSONPayload(map[string]int64{"bytes": size}) // kept as the task's result
}

// resize stands for the work a handler does.
func resize(ctx context.Context, path string) (int64, error) {
	info, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return info.Size(), ctx.Err()
}

// A process's failure, recorded with its exit code; one exit code means the input is bad,
// and retrying will not help.
func ExampleFailure() {
	client, err := tasklife.Connect("127.0.0.1:50051")
	if err != nil {
		log.Fatal(err)
	}
	worker, err := tasklife.NewWorker(client, func(ctx context.Context, task *pb.Task) error {
		out, err := exec.CommandContext(ctx, "convert", task.GetLabels()["image"], "out.png").CombinedOutput()
		var exited *exec.ExitError
		if errors.As(err, &exited) && exited.ExitCode() == 2 {
			return &tasklife.Failure{Type: "BadInput", NonRetryable: true, Details: tasklife.TextPayload(string(out)), Err: err}
		}
		return err // nil completes the task; otherwise error type exec.ExitError, with the process's exit code
	}, tasklife.WorkerOptions{Namespace: "images"})
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(worker.Run(context.Background()))
}

// What the worker records for an error: the Failure's type and exit code, the whole text.
func ExampleDescribeFailure() {
	err := fmt.Errorf("step 2: %w", &tasklife.Failure{Type: "DiskFull", Message: "no space left on /data", ExitCode: 28})
	failure := tasklife.DescribeFailure(err)
	fmt.Printf("%s | %s | %d\n", failure.GetErrorType(), failure.GetMessage(), failure.GetExitCode())

	_, err = os.Open("/no/such/file")
	fmt.Println(tasklife.DescribeFailure(err).GetErrorType())
	// Output:
	// DiskFull | step 2: no space left on /data | 28
	// fs.PathError
}

// Many transitions in one call, each answered on its own with the single RPC's typed error.
func ExampleResultError() {
	client, _ := tasklife.Connect("127.0.0.1:50051")
	resp, err := client.BatchTransitionTasks(context.Background(), &pb.BatchTransitionTasksRequest{
		Items: []*pb.BatchTransitionTasksItem{
			tasklife.TransitionItem(&pb.EnqueueTaskRequest{TaskId: "a"}),
			tasklife.TransitionItem(&pb.KillTaskRequest{TaskId: "b", Reason: "runaway"}),
		},
	})
	if err != nil {
		log.Fatal(err) // the whole call: BATCH_TOO_LARGE, UNAVAILABLE, ...
	}
	for i, result := range resp.GetResults() {
		var invalid *tasklife.InvalidTransitionError
		switch err := tasklife.ResultError(result); {
		case err == nil:
			fmt.Println(i, result.GetTask().GetState())
		case errors.As(err, &invalid):
			fmt.Println(i, "not from", invalid.CurrentState)
		default:
			fmt.Println(i, err)
		}
	}
}
