package tasklife_test

// The one language-neutral conformance scenario (clients/conformance/scenario.json),
// executed step by step through the wrapper against the live server, as
// clients/conformance/README.md specifies.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// stepTimeout bounds each step; the README gives a watch 10 seconds to deliver.
const stepTimeout = 10 * time.Second

func TestConformanceScenario(t *testing.T) {
	scenario := loadScenario(t)
	dropper := &streamDropper{}
	client := connect(t, tasklife.WithDialOptions(dropper.dialOption()))
	run := &scenarioRun{
		client:    client,
		methods:   scenarioMethods(client),
		runID:     uniqueID("go"),
		responses: map[string]proto.Message{},
		dropper:   dropper,
	}
	t.Logf("run id %s", run.runID)
	for i, raw := range scenario.Steps {
		step, err := run.parse(raw)
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		// Later steps build on earlier ones, so the first failure ends the run.
		if !t.Run(step.ID, func(t *testing.T) { run.execute(t, step) }) {
			t.Fatalf("step %q failed; the steps after it depend on it", step.ID)
		}
	}
}

// scenarioRun is the state one run carries from step to step.
type scenarioRun struct {
	client    *tasklife.Client
	methods   map[string]scenarioMethod
	runID     string
	responses map[string]proto.Message // by step id, for expect_same_as and ${cursor:...}
	dropper   *streamDropper
}

func (r *scenarioRun) parse(raw json.RawMessage) (scenarioStep, error) {
	var step scenarioStep
	filled, err := substitute(raw, r.runID, r.cursorOf)
	if err != nil {
		return step, err
	}
	if err := strictUnmarshal(filled, &step); err != nil {
		return step, fmt.Errorf("parse %s: %w", filled, err)
	}
	return step, nil
}

// cursorOf is the event.cursor of an earlier step's response.
func (r *scenarioRun) cursorOf(stepID string) (string, error) {
	response, ok := r.responses[stepID]
	if !ok {
		return "", fmt.Errorf("${cursor:%s}: no earlier step %q has a response", stepID, stepID)
	}
	withEvent, ok := response.(interface{ GetEvent() *pb.TaskEvent })
	if !ok || withEvent.GetEvent().GetCursor() == "" {
		return "", fmt.Errorf("${cursor:%s}: the response of %q has no event cursor", stepID, stepID)
	}
	return withEvent.GetEvent().GetCursor(), nil
}

func (r *scenarioRun) execute(t *testing.T, step scenarioStep) {
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	switch step.Op {
	case "call", "cas":
		r.call(ctx, t, step)
	case "history":
		r.history(ctx, t, step)
	case "worker":
		r.worker(t, step)
	case "cooperative_kill":
		r.cooperativeKill(t, step)
	case "watch":
		r.watch(ctx, t, step)
	default:
		t.Fatalf("unknown op %q", step.Op)
	}
}

func (r *scenarioRun) call(ctx context.Context, t *testing.T, step scenarioStep) {
	method, ok := r.methods[step.Method]
	if !ok {
		t.Fatalf("unknown method %q", step.Method)
	}
	request := method.newRequest()
	if err := protojson.Unmarshal(step.Req, request); err != nil {
		t.Fatalf("request is not a %s: %v", request.ProtoReflect().Descriptor().FullName(), err)
	}
	call := method.call
	if step.Op == "cas" {
		if method.cas == nil {
			t.Fatalf("%s is not a transition: no compare-and-swap", step.Method)
		}
		call = method.cas
	}
	response, err := call(ctx, request)

	if step.ExpectError != nil {
		checkError(t, err, *step.ExpectError)
		return
	}
	if err != nil {
		t.Fatalf("%s failed: %v", step.Method, err)
	}
	r.responses[step.ID] = response
	if step.Expect != nil {
		problems, err := subsetMismatches(response, step.Expect)
		if err != nil {
			t.Fatal(err)
		}
		for _, problem := range problems {
			t.Errorf("response%s", problem)
		}
	}
	if step.ExpectSameAs != "" {
		earlier, ok := r.responses[step.ExpectSameAs]
		if !ok {
			t.Fatalf("expect_same_as: step %q has no response", step.ExpectSameAs)
		}
		if !proto.Equal(response, earlier) {
			t.Errorf("response differs from step %q's:\n got %v\nwant %v", step.ExpectSameAs, response, earlier)
		}
	}
}

// checkError checks that err is the typed error the scenario describes, decoded from the
// status details.
func checkError(t *testing.T, err error, want expectedError) {
	t.Helper()
	if err == nil {
		t.Fatalf("the call succeeded; want a %s error", want.Kind)
	}
	var base *tasklife.Error
	if !errors.As(err, &base) {
		t.Fatalf("want a *tasklife.Error, got %T: %v", err, err)
	}
	var wantCode codes.Code
	if err := wantCode.UnmarshalJSON([]byte(strconv.Quote(want.Code))); err != nil {
		t.Fatalf("scenario code %q: %v", want.Code, err)
	}
	if base.Code != wantCode || base.Reason != want.Reason {
		t.Errorf("code and reason: got %v %q, want %v %q", base.Code, base.Reason, wantCode, want.Reason)
	}

	var (
		state   pb.TaskState
		allowed []string
		version *int64
	)
	switch want.Kind {
	case "invalid_transition":
		var typed *tasklife.InvalidTransitionError
		if !errors.As(err, &typed) {
			t.Fatalf("want *tasklife.InvalidTransitionError, got %T: %v", err, err)
		}
		state, allowed = typed.CurrentState, typed.AllowedActions
	case "version_mismatch":
		var typed *tasklife.VersionMismatchError
		if !errors.As(err, &typed) {
			t.Fatalf("want *tasklife.VersionMismatchError, got %T: %v", err, err)
		}
		state, version = typed.CurrentState, &typed.CurrentVersion
	case "not_found":
		var typed *tasklife.NotFoundError
		if !errors.As(err, &typed) {
			t.Fatalf("want *tasklife.NotFoundError, got %T: %v", err, err)
		}
	case "tasklife_error": // the base *tasklife.Error, checked above
	default:
		t.Fatalf("unknown error kind %q", want.Kind)
	}

	// A fact the scenario gives but this kind of error cannot carry is a scenario error.
	if want.CurrentState != "" {
		if state == pb.TaskState_TASK_STATE_UNSPECIFIED {
			t.Fatalf("a %s error has no current_state", want.Kind)
		}
		if state.String() != want.CurrentState {
			t.Errorf("current_state: got %v, want %s", state, want.CurrentState)
		}
	}
	if want.AllowedActions != nil {
		if want.Kind != "invalid_transition" {
			t.Fatalf("a %s error has no allowed_actions", want.Kind)
		}
		if !slices.Equal(allowed, want.AllowedActions) {
			t.Errorf("allowed_actions: got %q, want %q", allowed, want.AllowedActions)
		}
	}
	if want.CurrentVersion != nil {
		if version == nil {
			t.Fatalf("a %s error has no current_version", want.Kind)
		}
		if *version != *want.CurrentVersion {
			t.Errorf("current_version: got %d, want %d", *version, *want.CurrentVersion)
		}
	}
}

func (r *scenarioRun) history(ctx context.Context, t *testing.T, step scenarioStep) {
	// Page size 2, so a four-event history takes the wrapper through several pages.
	var (
		versions          []int64
		attempts          []int32
		toStates, workers []string
		operators         []string
	)
	for event, err := range r.client.AllTaskEvents(ctx, &pb.ListTaskEventsRequest{TaskId: step.TaskID, PageSize: 2}) {
		if err != nil {
			t.Fatalf("ListTaskEvents: %v", err)
		}
		versions = append(versions, event.GetVersion())
		toStates = append(toStates, event.GetToState().String())
		workers = append(workers, event.GetWorker())
		operators = append(operators, event.GetOperator())
		attempts = append(attempts, event.GetAttempt())
	}
	if !slices.Equal(versions, step.ExpectVersions) {
		t.Errorf("versions: got %v, want %v", versions, step.ExpectVersions)
	}
	if !slices.Equal(toStates, step.ExpectToStates) {
		t.Errorf("to_states: got %v, want %v", toStates, step.ExpectToStates)
	}
	if step.ExpectWorkers != nil && !slices.Equal(workers, step.ExpectWorkers) {
		t.Errorf("workers: got %q, want %q", workers, step.ExpectWorkers)
	}
	if step.ExpectOperators != nil && !slices.Equal(operators, step.ExpectOperators) {
		t.Errorf("operators: got %q, want %q", operators, step.ExpectOperators)
	}
	if step.ExpectAttempts != nil && !slices.Equal(attempts, step.ExpectAttempts) {
		t.Errorf("attempts: got %v, want %v", attempts, step.ExpectAttempts)
	}
}

func (r *scenarioRun) watch(ctx context.Context, t *testing.T, step scenarioStep) {
	request := &pb.WatchTaskEventsRequest{}
	if err := protojson.Unmarshal(step.Req, request); err != nil {
		t.Fatalf("request is not a WatchTaskEventsRequest: %v", err)
	}
	watcher, err := r.client.Watch(ctx, request)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer watcher.Close()

	var versions []int64
	for len(versions) < len(step.ExpectVersions) {
		event, err := watcher.Next()
		if err != nil {
			t.Fatalf("after versions %v, want %v within %v: %v", versions, step.ExpectVersions, stepTimeout, err)
		}
		versions = append(versions, event.GetVersion())
		if len(versions) == step.DisconnectAfterEvents {
			r.dropper.drop() // the watcher must notice and resume by itself
		}
	}
	if !slices.Equal(versions, step.ExpectVersions) {
		t.Errorf("versions: got %v, want %v (no gap, no duplicate)", versions, step.ExpectVersions)
	}
	t.Logf("streams opened: %d, reconnects: %d", len(r.dropper.watchRequests()), watcher.Reconnects())
}
