package tasklife_test

// A sequential specification of one task, for porcupine: what every compare-and-swap
// transition and every read must return if the server behaves as one task at a time.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

type edge struct {
	from   pb.TaskState
	action pb.TaskAction
}

// lifecycleTransitions is the state machine as the TaskAction comments in task.proto
// describe it. TestTheModelsStateMachineIsTheServers checks it against GetStateMachine.
var lifecycleTransitions = map[edge]pb.TaskState{
	{pb.TaskState_TASK_STATE_CREATED, pb.TaskAction_TASK_ACTION_ENQUEUE}:   pb.TaskState_TASK_STATE_READY,
	{pb.TaskState_TASK_STATE_RETRYING, pb.TaskAction_TASK_ACTION_ENQUEUE}:  pb.TaskState_TASK_STATE_READY,
	{pb.TaskState_TASK_STATE_READY, pb.TaskAction_TASK_ACTION_START}:       pb.TaskState_TASK_STATE_RUNNING,
	{pb.TaskState_TASK_STATE_RUNNING, pb.TaskAction_TASK_ACTION_COMPLETE}:  pb.TaskState_TASK_STATE_SUCCEEDED,
	{pb.TaskState_TASK_STATE_RUNNING, pb.TaskAction_TASK_ACTION_FAIL}:      pb.TaskState_TASK_STATE_FAILED,
	{pb.TaskState_TASK_STATE_FAILED, pb.TaskAction_TASK_ACTION_RETRY}:      pb.TaskState_TASK_STATE_RETRYING,
	{pb.TaskState_TASK_STATE_READY, pb.TaskAction_TASK_ACTION_PAUSE}:       pb.TaskState_TASK_STATE_PAUSED,
	{pb.TaskState_TASK_STATE_RUNNING, pb.TaskAction_TASK_ACTION_PAUSE}:     pb.TaskState_TASK_STATE_PAUSED,
	{pb.TaskState_TASK_STATE_PAUSED, pb.TaskAction_TASK_ACTION_RESUME}:     pb.TaskState_TASK_STATE_READY,
	{pb.TaskState_TASK_STATE_RUNNING, pb.TaskAction_TASK_ACTION_KILL}:      pb.TaskState_TASK_STATE_KILLED,
	{pb.TaskState_TASK_STATE_FAILED, pb.TaskAction_TASK_ACTION_KILL}:       pb.TaskState_TASK_STATE_KILLED,
	{pb.TaskState_TASK_STATE_READY, pb.TaskAction_TASK_ACTION_ABANDON}:     pb.TaskState_TASK_STATE_ABANDONED,
	{pb.TaskState_TASK_STATE_PAUSED, pb.TaskAction_TASK_ACTION_ABANDON}:    pb.TaskState_TASK_STATE_ABANDONED,
	{pb.TaskState_TASK_STATE_SUCCEEDED, pb.TaskAction_TASK_ACTION_ABANDON}: pb.TaskState_TASK_STATE_ABANDONED,
	{pb.TaskState_TASK_STATE_FAILED, pb.TaskAction_TASK_ACTION_ABANDON}:    pb.TaskState_TASK_STATE_ABANDONED,
	{pb.TaskState_TASK_STATE_KILLED, pb.TaskAction_TASK_ACTION_ABANDON}:    pb.TaskState_TASK_STATE_ABANDONED,
}

// taskState is the model's state of one task. Comparable, as porcupine's default
// equality needs.
type taskState struct {
	State   pb.TaskState
	Version int64
}

// readAction marks an operation as a GetTask rather than a transition.
const readAction = pb.TaskAction_TASK_ACTION_UNSPECIFIED

// taskInput is one call: a GetTask, or a transition sent with expected_version.
type taskInput struct {
	TaskID          string
	Action          pb.TaskAction // readAction for GetTask
	ExpectedVersion int64
}

type outcome int

const (
	succeeded outcome = iota
	versionMismatch
	invalidTransition
)

func (o outcome) String() string {
	return [...]string{"ok", "VERSION_MISMATCH", "INVALID_TRANSITION"}[o]
}

// taskOutput is what the call returned: the task after a success or a read; the current
// version and state from a VERSION_MISMATCH; the current state from an INVALID_TRANSITION,
// whose version is the expected one (the server reports a mismatch first).
type taskOutput struct {
	Outcome outcome
	State   pb.TaskState
	Version int64
}

func stepTask(current taskState, in taskInput, out taskOutput) (bool, taskState) {
	unchanged := taskOutput{State: current.State, Version: current.Version}
	switch {
	case in.Action == readAction:
		unchanged.Outcome = succeeded
		return out == unchanged, current
	case in.ExpectedVersion != current.Version:
		unchanged.Outcome = versionMismatch
		return out == unchanged, current
	}
	to, allowed := lifecycleTransitions[edge{current.State, in.Action}]
	if !allowed {
		unchanged.Outcome = invalidTransition
		return out == unchanged, current
	}
	next := taskState{State: to, Version: current.Version + 1}
	return out == taskOutput{Outcome: succeeded, State: next.State, Version: next.Version}, next
}

// taskModel checks each task's history on its own (tasks share nothing), starting from
// the state CreateTask leaves a task in.
var taskModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byTask := map[string][]porcupine.Operation{}
		var order []string
		for _, op := range history {
			id := op.Input.(taskInput).TaskID
			if _, seen := byTask[id]; !seen {
				order = append(order, id)
			}
			byTask[id] = append(byTask[id], op)
		}
		partitions := make([][]porcupine.Operation, 0, len(order))
		for _, id := range order {
			partitions = append(partitions, byTask[id])
		}
		return partitions
	},
	Init: func() any { return taskState{State: pb.TaskState_TASK_STATE_CREATED, Version: 1} },
	Step: func(state, input, output any) (bool, any) {
		return stepTask(state.(taskState), input.(taskInput), output.(taskOutput))
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(taskInput), output.(taskOutput)
		name := "GetTask"
		if in.Action != readAction {
			name = fmt.Sprintf("%s@v%d", shortAction(in.Action), in.ExpectedVersion)
		}
		return fmt.Sprintf("%s -> %s %s v%d", name, out.Outcome, shortState(out.State), out.Version)
	},
	DescribeState: func(state any) string {
		s := state.(taskState)
		return fmt.Sprintf("%s v%d", shortState(s.State), s.Version)
	},
}

func shortState(s pb.TaskState) string   { return strings.TrimPrefix(s.String(), "TASK_STATE_") }
func shortAction(a pb.TaskAction) string { return strings.TrimPrefix(a.String(), "TASK_ACTION_") }

// The model must be able to say no, or a passing linearizability check means nothing.

// op is a hand-made operation on task "t" for the tests below.
func op(client int, call, ret int64, action pb.TaskAction, expected int64, out taskOutput) porcupine.Operation {
	return porcupine.Operation{
		ClientId: client, Call: call, Return: ret,
		Input:  taskInput{TaskID: "t", Action: action, ExpectedVersion: expected},
		Output: out,
	}
}

var (
	enqueue = pb.TaskAction_TASK_ACTION_ENQUEUE
	start   = pb.TaskAction_TASK_ACTION_START
	ready   = pb.TaskState_TASK_STATE_READY
	running = pb.TaskState_TASK_STATE_RUNNING
	created = pb.TaskState_TASK_STATE_CREATED
)

func TestTheModelAcceptsASequentialLegalHistory(t *testing.T) {
	history := []porcupine.Operation{
		op(0, 0, 1, enqueue, 1, taskOutput{succeeded, ready, 2}),
		op(0, 2, 3, enqueue, 1, taskOutput{versionMismatch, ready, 2}),
		op(0, 4, 5, enqueue, 2, taskOutput{invalidTransition, ready, 2}),
		op(0, 6, 7, start, 2, taskOutput{succeeded, running, 3}),
		op(0, 8, 9, readAction, 0, taskOutput{succeeded, running, 3}),
	}
	if !porcupine.CheckOperations(taskModel, history) {
		t.Fatal("a legal history was rejected")
	}
}

func TestTheModelOrdersOverlappingCallsByTheirResults(t *testing.T) {
	// Two overlapping enqueues at version 1: one wins, the other sees version 2.
	history := []porcupine.Operation{
		op(0, 0, 10, enqueue, 1, taskOutput{versionMismatch, ready, 2}),
		op(1, 1, 5, enqueue, 1, taskOutput{succeeded, ready, 2}),
	}
	if !porcupine.CheckOperations(taskModel, history) {
		t.Fatal("a linearizable concurrent history was rejected")
	}
}

func TestTheModelRejectsTwoWinnersOfOneCompareAndSwap(t *testing.T) {
	history := []porcupine.Operation{
		op(0, 0, 10, enqueue, 1, taskOutput{succeeded, ready, 2}),
		op(1, 1, 9, enqueue, 1, taskOutput{succeeded, ready, 2}),
	}
	if porcupine.CheckOperations(taskModel, history) {
		t.Fatal("a lost update was accepted")
	}
}

func TestTheModelRejectsAStaleReadAfterACompletedWrite(t *testing.T) {
	history := []porcupine.Operation{
		op(0, 0, 1, enqueue, 1, taskOutput{succeeded, ready, 2}),
		op(1, 2, 3, readAction, 0, taskOutput{succeeded, created, 1}),
	}
	if porcupine.CheckOperations(taskModel, history) {
		t.Fatal("a stale read was accepted")
	}
}

func TestTheModelRejectsAMoveTheStateMachineForbids(t *testing.T) {
	history := []porcupine.Operation{
		op(0, 0, 1, start, 1, taskOutput{succeeded, running, 2}), // CREATED cannot start
	}
	if porcupine.CheckOperations(taskModel, history) {
		t.Fatal("an illegal transition was accepted")
	}
}

func TestTheModelRejectsAMismatchThatMisreportsTheVersion(t *testing.T) {
	history := []porcupine.Operation{
		op(0, 0, 1, enqueue, 1, taskOutput{succeeded, ready, 2}),
		op(0, 2, 3, start, 1, taskOutput{versionMismatch, ready, 3}),
	}
	if porcupine.CheckOperations(taskModel, history) {
		t.Fatal("a mismatch reporting a version nobody wrote was accepted")
	}
}
