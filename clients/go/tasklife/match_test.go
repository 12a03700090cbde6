package tasklife_test

// The scenario's `expect`: the response must contain every field given, recursively; maps
// given must match exactly; a repeated field given must have exactly as many elements, each
// matching (a message element as a recursive subset, a scalar exactly). Both sides are
// compared in the protobuf JSON mapping, the form the scenario is written in.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// subsetMismatches lists every way got fails to contain want; empty means it does.
func subsetMismatches(got proto.Message, want json.RawMessage) ([]string, error) {
	// EmitUnpopulated: an expected zero value ("reason": "") must be found, not missing.
	rendered, err := protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(got)
	if err != nil {
		return nil, err
	}
	var gotJSON, wantJSON map[string]any
	if err := decodeJSON(rendered, &gotJSON); err != nil {
		return nil, err
	}
	if err := decodeJSON(want, &wantJSON); err != nil {
		return nil, fmt.Errorf("expect is not a JSON object: %w", err)
	}
	var problems []string
	compareMessage(got.ProtoReflect().Descriptor(), wantJSON, gotJSON, "", &problems)
	slices.Sort(problems) // map order is random; reports should not be
	return problems, nil
}

func compareMessage(desc protoreflect.MessageDescriptor, want, got map[string]any, path string, problems *[]string) {
	for key, wantValue := range want {
		field := desc.Fields().ByJSONName(key)
		if field == nil {
			field = desc.Fields().ByName(protoreflect.Name(key))
		}
		fieldPath := path + "." + key
		if field == nil {
			*problems = append(*problems, fmt.Sprintf("%s: %s has no such field", fieldPath, desc.FullName()))
			continue
		}
		gotValue := got[field.JSONName()]
		if field.IsList() {
			compareList(field, wantValue, gotValue, fieldPath, problems)
			continue
		}
		compareValue(field, wantValue, gotValue, fieldPath, problems)
	}
}

// compareList matches a repeated field element by element; the lengths must be equal.
func compareList(field protoreflect.FieldDescriptor, want, got any, path string, problems *[]string) {
	wantList, wantIsList := want.([]any)
	gotList, _ := got.([]any)
	if !wantIsList || len(wantList) != len(gotList) {
		*problems = append(*problems, fmt.Sprintf("%s: want %s, got %s", path, show(want), show(got)))
		return
	}
	for i := range wantList {
		compareValue(field, wantList[i], gotList[i], fmt.Sprintf("%s[%d]", path, i), problems)
	}
}

// compareValue matches one value of field: a message given as an object as a subset; a map,
// a scalar or a well-known type written as a string must be equal.
func compareValue(field protoreflect.FieldDescriptor, want, got any, path string, problems *[]string) {
	wantObject, wantIsObject := want.(map[string]any)
	gotObject, gotIsObject := got.(map[string]any)
	if field.Message() != nil && !field.IsMap() && wantIsObject {
		if !gotIsObject {
			*problems = append(*problems, fmt.Sprintf("%s: want %s, got %s", path, show(want), show(got)))
			return
		}
		compareMessage(field.Message(), wantObject, gotObject, path, problems)
		return
	}
	if !reflect.DeepEqual(want, got) {
		*problems = append(*problems, fmt.Sprintf("%s: want %s, got %s", path, show(want), show(got)))
	}
}

// decodeJSON keeps numbers as written, so 1 and 1.0 never compare by float rounding.
func decodeJSON(data []byte, into any) error {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	return decoder.Decode(into)
}

func show(v any) string {
	out, _ := json.Marshal(v)
	return string(out)
}

// The matcher is what makes the conformance run mean anything, so it is specified here.
func TestSubsetMatchAcceptsAResponseContainingEveryExpectedField(t *testing.T) {
	response := &pb.CreateTaskResponse{
		Task:  &pb.Task{TaskId: "a", State: pb.TaskState_TASK_STATE_CREATED, Version: 1, Labels: map[string]string{"k": "v"}},
		Event: &pb.TaskEvent{Version: 1, Reason: ""},
	}
	problems, err := subsetMismatches(response, json.RawMessage(
		`{"task": {"state": "TASK_STATE_CREATED", "version": "1", "labels": {"k": "v"}}, "event": {"reason": ""}}`))
	if err != nil || len(problems) != 0 {
		t.Fatalf("want a match, got %v %v", problems, err)
	}
}

func TestSubsetMatchReportsEveryDifference(t *testing.T) {
	response := &pb.CreateTaskResponse{
		Task: &pb.Task{TaskId: "a", State: pb.TaskState_TASK_STATE_READY, Version: 2, Labels: map[string]string{"k": "v", "extra": "x"}},
	}
	problems, err := subsetMismatches(response, json.RawMessage(
		`{"task": {"state": "TASK_STATE_CREATED", "version": "2", "labels": {"k": "v"}, "dependsOn": ["b"]},
		  "event": {"version": "1"}, "nonsense": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`.event: want {"version":"1"}, got null`,
		`.nonsense: tasklife.v1.CreateTaskResponse has no such field`,
		`.task.dependsOn: want ["b"], got []`,
		`.task.labels: want {"k":"v"}, got {"extra":"x","k":"v"}`,
		`.task.state: want "TASK_STATE_CREATED", got "TASK_STATE_READY"`,
	}
	if !slices.Equal(problems, want) {
		t.Fatalf("problems:\n got %q\nwant %q", problems, want)
	}
}

func TestSubsetMatchMatchesEachElementOfARepeatedMessageFieldAsASubset(t *testing.T) {
	response := &pb.ListTaskAttemptsResponse{Attempts: []*pb.TaskAttempt{
		{Attempt: 1, Worker: "w", EndState: pb.TaskState_TASK_STATE_FAILED, Failure: &pb.TaskFailure{ErrorType: "DiskFull", Message: "full"}},
		{Attempt: 2, Worker: "w", EndState: pb.TaskState_TASK_STATE_SUCCEEDED, HasResult: true},
	}}
	problems, err := subsetMismatches(response, json.RawMessage(
		`{"attempts": [{"attempt": 1, "failure": {"errorType": "DiskFull"}}, {"attempt": 2, "hasResult": true}]}`))
	if err != nil || len(problems) != 0 {
		t.Fatalf("want a match, got %v %v", problems, err)
	}
}

func TestSubsetMatchReportsARepeatedFieldOfAnotherLengthOrWithAnElementThatDiffers(t *testing.T) {
	response := &pb.ListTaskAttemptsResponse{Attempts: []*pb.TaskAttempt{{Attempt: 1, Worker: "w"}, {Attempt: 2, Worker: "v"}}}
	for _, c := range []struct{ expect, problem string }{
		{`{"attempts": [{"attempt": 1}]}`, `.attempts: want [{"attempt":1}], got `},
		{`{"attempts": [{"attempt": 1}, {"worker": "w"}]}`, `.attempts[1].worker: want "w", got "v"`},
	} {
		problems, err := subsetMismatches(response, json.RawMessage(c.expect))
		if err != nil || len(problems) != 1 || !strings.HasPrefix(problems[0], c.problem) {
			t.Errorf("expect %s: problems %q (%v), want one starting %q", c.expect, problems, err, c.problem)
		}
	}
}
