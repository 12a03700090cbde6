package main

// The reference worker as the cross-language test and the bench run it: through
// reference-worker.sh, against the live server (TASKLIFE_ADDRESS; skipped without it).

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

const script = "../../reference-worker.sh"

func TestReferenceWorkerHelpBuildsAndExitsZero(t *testing.T) {
	out, err := exec.Command("bash", script, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("reference-worker.sh --help: %v\n%s", err, out)
	}
	for _, flag := range []string{"--address", "--namespace", "--worker", "--concurrency", "--handler-ms", "--lease-ms", "--idle-exit-ms", "--labels"} {
		if !strings.Contains(string(out), flag) {
			t.Errorf("the usage does not mention %s:\n%s", flag, out)
		}
	}
}

func TestReferenceWorkerCompletesFiftyReadyTasksExactlyOnce(t *testing.T) {
	address := os.Getenv("TASKLIFE_ADDRESS")
	if address == "" {
		t.Skip("TASKLIFE_ADDRESS is not set: no live Tasklife server to test against")
	}
	client, err := tasklife.Connect(address, tasklife.WithDefaultTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	namespace, worker := unique("rw"), unique("go-ref")
	ids := createReadyTasks(t, client, namespace, 50)

	cmd := exec.Command("bash", script, "--address", address, "--namespace", namespace, "--worker", worker,
		"--concurrency", "8", "--handler-ms", "5", "--lease-ms", "5000", "--idle-exit-ms", "1500")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := runWithin(cmd, 2*time.Minute); err != nil {
		t.Fatalf("reference-worker.sh: %v\nstderr:\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one JSON line on stdout, got %q", stdout.String())
	}
	var got summary
	if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
		t.Fatalf("stdout %q: %v", lines[0], err)
	}
	if got.Worker != worker || got.Claimed != 50 || got.Completed != 50 || got.Failed != 0 || got.Dropped != 0 || got.Seconds <= 0 {
		t.Fatalf("summary %+v, want worker %s with 50 claimed and completed", got, worker)
	}
	for _, id := range ids {
		assertStartedAndCompletedOnceBy(t, client, id, worker)
	}
}

func assertStartedAndCompletedOnceBy(t *testing.T, client *tasklife.Client, id, worker string) {
	t.Helper()
	var starts, completes []*pb.TaskEvent
	for event, err := range client.AllTaskEvents(context.Background(), &pb.ListTaskEventsRequest{TaskId: id}) {
		if err != nil {
			t.Fatalf("ListTaskEvents %s: %v", id, err)
		}
		switch event.GetAction() {
		case pb.TaskAction_TASK_ACTION_START:
			starts = append(starts, event)
		case pb.TaskAction_TASK_ACTION_COMPLETE:
			completes = append(completes, event)
		}
	}
	if len(starts) != 1 || len(completes) != 1 {
		t.Fatalf("task %s: %d StartTask and %d CompleteTask events, want one of each", id, len(starts), len(completes))
	}
	if want := fmt.Sprintf("%s:%s:1:complete", worker, id); completes[0].GetRequestId() != want {
		t.Fatalf("task %s: CompleteTask request_id %q, want %q", id, completes[0].GetRequestId(), want)
	}
	task, err := client.GetTask(context.Background(), &pb.GetTaskRequest{TaskId: id})
	if err != nil {
		t.Fatal(err)
	}
	// Task.worker is set only while the task runs: who ran it is in the history.
	if task.GetTask().GetState() != pb.TaskState_TASK_STATE_SUCCEEDED || starts[0].GetWorker() != worker || completes[0].GetWorker() != worker {
		t.Fatalf("task %s: %v, started by %q and completed by %q, want SUCCEEDED, started and completed by %s",
			id, task.GetTask().GetState(), starts[0].GetWorker(), completes[0].GetWorker(), worker)
	}
}

// createReadyTasks creates n ready tasks (never retried) in namespace, in two batch calls.
func createReadyTasks(t *testing.T, client *tasklife.Client, namespace string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	creates := make([]*pb.CreateTaskRequest, n)
	enqueues := make([]*pb.BatchTransitionTasksItem, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-%02d", namespace, i)
		creates[i] = &pb.CreateTaskRequest{TaskId: ids[i], Namespace: namespace, RetryPolicy: &pb.RetryPolicy{MaxAttempts: 1}}
		enqueues[i] = tasklife.TransitionItem(&pb.EnqueueTaskRequest{TaskId: ids[i]})
	}
	created, err := client.BatchCreateTasks(context.Background(), &pb.BatchCreateTasksRequest{Requests: creates})
	if err != nil {
		t.Fatal(err)
	}
	enqueued, err := client.BatchTransitionTasks(context.Background(), &pb.BatchTransitionTasksRequest{Items: enqueues})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := tasklife.ResultError(created.GetResults()[i]); err != nil {
			t.Fatalf("create %s: %v", ids[i], err)
		}
		if err := tasklife.ResultError(enqueued.GetResults()[i]); err != nil {
			t.Fatalf("enqueue %s: %v", ids[i], err)
		}
	}
	return slices.Clip(ids)
}

// runWithin runs cmd, killing it if it outlasts timeout.
func runWithin(cmd *exec.Cmd, timeout time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		return fmt.Errorf("still running after %s: killed", timeout)
	}
}

// unique is a namespace (lowercase, digits, '-') no earlier run has used.
func unique(prefix string) string {
	random := make([]byte, 5)
	_, _ = rand.Read(random)
	return prefix + "-" + time.Now().UTC().Format("150405") + "-" + hex.EncodeToString(random)
}
