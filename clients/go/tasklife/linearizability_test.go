package tasklife_test

// Many goroutines race compare-and-swap transitions (and reads) on a few tasks of the live
// server; every call's start, end and outcome is recorded, and porcupine checks that
// some sequential order of them, consistent with real time, obeys taskModel.

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

const (
	racingWorkers   = 16
	racedTasks      = 3
	callsPerWorker  = 60
	racingTimeLimit = 5 * time.Second // workers stop early past this, to keep the test short
	checkTimeLimit  = 30 * time.Second
)

// cycleActions never lead to a final state, so the tasks keep moving for the whole test:
// CREATED -> READY <-> PAUSED, READY -> RUNNING -> FAILED -> RETRYING -> READY, RUNNING -> PAUSED.
var cycleActions = []pb.TaskAction{
	pb.TaskAction_TASK_ACTION_ENQUEUE, pb.TaskAction_TASK_ACTION_START, pb.TaskAction_TASK_ACTION_FAIL,
	pb.TaskAction_TASK_ACTION_RETRY, pb.TaskAction_TASK_ACTION_PAUSE, pb.TaskAction_TASK_ACTION_RESUME,
}

func TestConcurrentCompareAndSwapTransitionsAreLinearizable(t *testing.T) {
	client := connect(t)
	ctx := withTimeout(t, racingTimeLimit+10*time.Second)
	ids := make([]string, racedTasks)
	for i := range ids {
		ids[i] = createTask(t, client, uniqueID("linearizable")).GetTaskId()
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)

	var (
		mu      sync.Mutex
		history []porcupine.Operation
		failure error
		wg      sync.WaitGroup
	)
	origin := time.Now()
	clock := func() int64 { return time.Since(origin).Nanoseconds() } // monotonic
	record := func(worker int, in taskInput, call int64, out taskOutput, ret int64) {
		mu.Lock()
		defer mu.Unlock()
		history = append(history, porcupine.Operation{ClientId: worker, Input: in, Call: call, Output: out, Return: ret})
	}
	for worker := range racingWorkers {
		wg.Go(func() {
			random := rand.New(rand.NewPCG(seed, uint64(worker)))
			known := map[string]taskState{} // what this worker last saw of each task
			for _, id := range ids {
				known[id] = taskState{State: pb.TaskState_TASK_STATE_CREATED, Version: 1}
			}
			for range callsPerWorker {
				if time.Since(origin) > racingTimeLimit {
					return
				}
				id := ids[random.IntN(len(ids))]
				in := chooseCall(random, id, known[id])
				call := clock()
				out, err := perform(ctx, client, in)
				ret := clock()
				if err != nil {
					mu.Lock()
					failure = errors.Join(failure, err)
					mu.Unlock()
					return
				}
				record(worker, in, call, out, ret)
				known[id] = taskState{State: out.State, Version: out.Version}
			}
		})
	}
	wg.Wait()
	if failure != nil {
		t.Fatalf("a call failed in an unexpected way: %v", failure)
	}
	// A last read of each task, after every race, pins the final states down too.
	for _, id := range ids {
		in := taskInput{TaskID: id, Action: readAction}
		call := clock()
		out, err := perform(ctx, client, in)
		if err != nil {
			t.Fatal(err)
		}
		record(racingWorkers, in, call, out, clock())
	}

	checkLinearizable(t, history)
	requireEveryOutcome(t, history)
}

// chooseCall mostly attempts a move that is legal from what the worker last saw, and
// sometimes any move or a read: stale knowledge then produces version mismatches, and
// random moves produce invalid transitions.
func chooseCall(random *rand.Rand, id string, known taskState) taskInput {
	if random.IntN(100) < 15 {
		return taskInput{TaskID: id, Action: readAction}
	}
	action := cycleActions[random.IntN(len(cycleActions))]
	if random.IntN(100) < 75 {
		var legal []pb.TaskAction
		for _, a := range cycleActions {
			if _, ok := lifecycleTransitions[edge{known.State, a}]; ok {
				legal = append(legal, a)
			}
		}
		if len(legal) > 0 {
			action = legal[random.IntN(len(legal))]
		}
	}
	return taskInput{TaskID: id, Action: action, ExpectedVersion: known.Version}
}

// perform makes the call through the wrapper and reduces its result to the model's terms.
func perform(ctx context.Context, client *tasklife.Client, in taskInput) (taskOutput, error) {
	var (
		task *pb.Task
		err  error
	)
	if in.Action == readAction {
		var resp *pb.GetTaskResponse
		resp, err = client.GetTask(ctx, &pb.GetTaskRequest{TaskId: in.TaskID})
		task = resp.GetTask()
	} else {
		task, err = transition(ctx, client, in)
	}
	var mismatch *tasklife.VersionMismatchError
	var invalid *tasklife.InvalidTransitionError
	switch {
	case err == nil:
		return taskOutput{Outcome: succeeded, State: task.GetState(), Version: task.GetVersion()}, nil
	case errors.As(err, &mismatch):
		return taskOutput{Outcome: versionMismatch, State: mismatch.CurrentState, Version: mismatch.CurrentVersion}, nil
	case errors.As(err, &invalid):
		return taskOutput{Outcome: invalidTransition, State: invalid.CurrentState, Version: in.ExpectedVersion}, nil
	}
	return taskOutput{}, err
}

func transition(ctx context.Context, c *tasklife.Client, in taskInput) (*pb.Task, error) {
	id, v, who := in.TaskID, &in.ExpectedVersion, "linearizability-test"
	type withTask interface{ GetTask() *pb.Task }
	var resp withTask
	var err error
	switch in.Action {
	case pb.TaskAction_TASK_ACTION_ENQUEUE:
		resp, err = c.EnqueueTask(ctx, &pb.EnqueueTaskRequest{TaskId: id, ExpectedVersion: v, Operator: who})
	case pb.TaskAction_TASK_ACTION_START:
		resp, err = c.StartTask(ctx, &pb.StartTaskRequest{TaskId: id, ExpectedVersion: v, Operator: who})
	case pb.TaskAction_TASK_ACTION_FAIL:
		resp, err = c.FailTask(ctx, &pb.FailTaskRequest{TaskId: id, ExpectedVersion: v, Operator: who})
	case pb.TaskAction_TASK_ACTION_RETRY:
		resp, err = c.RetryTask(ctx, &pb.RetryTaskRequest{TaskId: id, ExpectedVersion: v, Operator: who})
	case pb.TaskAction_TASK_ACTION_PAUSE:
		resp, err = c.PauseTask(ctx, &pb.PauseTaskRequest{TaskId: id, ExpectedVersion: v, Operator: who})
	case pb.TaskAction_TASK_ACTION_RESUME:
		resp, err = c.ResumeTask(ctx, &pb.ResumeTaskRequest{TaskId: id, ExpectedVersion: v, Operator: who})
	default:
		return nil, errors.New("no call for " + in.Action.String())
	}
	if err != nil {
		return nil, err
	}
	return resp.GetTask(), nil
}

func checkLinearizable(t *testing.T, history []porcupine.Operation) {
	t.Helper()
	result, info := porcupine.CheckOperationsVerbose(taskModel, history, checkTimeLimit)
	if result == porcupine.Ok {
		t.Logf("%d operations, linearizable", len(history))
		return
	}
	message := "the history is not linearizable"
	if result == porcupine.Unknown {
		message = "the check timed out"
	}
	if file, err := os.CreateTemp("", "tasklife-linearizability-*.html"); err == nil {
		if porcupine.Visualize(taskModel, info, file) == nil {
			message += "; see " + file.Name()
		}
		_ = file.Close()
	}
	t.Fatalf("%s (%d operations)", message, len(history))
}

// requireEveryOutcome makes sure the race really raced: a history without conflicts
// would pass the check without proving anything.
func requireEveryOutcome(t *testing.T, history []porcupine.Operation) {
	t.Helper()
	counts := map[outcome]int{}
	for _, op := range history {
		if op.Input.(taskInput).Action != readAction {
			counts[op.Output.(taskOutput).Outcome]++
		}
	}
	t.Logf("transitions: %d ok, %d version mismatches, %d invalid", counts[succeeded], counts[versionMismatch], counts[invalidTransition])
	for _, o := range []outcome{succeeded, versionMismatch, invalidTransition} {
		if counts[o] == 0 {
			t.Errorf("no transition ended in %s: the race did not exercise it", o)
		}
	}
}

func TestTheModelsStateMachineIsTheServers(t *testing.T) {
	client := connect(t)
	machine, err := client.GetStateMachine(withTimeout(t, 10*time.Second), &pb.GetStateMachineRequest{})
	if err != nil {
		t.Fatal(err)
	}
	served := map[edge]pb.TaskState{}
	for _, tr := range machine.GetTransitions() {
		if tr.GetAction() != pb.TaskAction_TASK_ACTION_CREATE {
			served[edge{tr.GetFromState(), tr.GetAction()}] = tr.GetToState()
		}
	}
	for e, to := range lifecycleTransitions {
		if served[e] != to {
			t.Errorf("%s --%s--> %s: the server says %s", e.from, e.action, to, served[e])
		}
	}
	for e, to := range served {
		if _, ok := lifecycleTransitions[e]; !ok {
			t.Errorf("the server allows %s --%s--> %s, the model does not", e.from, e.action, to)
		}
	}
}
