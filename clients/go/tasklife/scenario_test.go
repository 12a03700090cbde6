package tasklife_test

// Reading clients/conformance/scenario.json: its steps, and the ${...} placeholders the
// conformance README defines. The steps are executed in conformance_test.go.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

const scenarioPath = "../../conformance/scenario.json"

// scenarioStep is one step; which fields are set depends on Op. Unknown fields are an
// error, so a scenario that grows is never half understood.
type scenarioStep struct {
	ID     string          `json:"id"`
	Op     string          `json:"op"` // call, cas, history, worker or watch
	Method string          `json:"method"`
	Req    json.RawMessage `json:"request"`

	Expect       json.RawMessage `json:"expect"`
	ExpectSameAs string          `json:"expect_same_as"`
	ExpectError  *expectedError  `json:"expect_error"`

	// history; the lists that are nil were not given and are not checked
	TaskID          string   `json:"task_id"`
	ExpectVersions  []int64  `json:"expect_versions"`
	ExpectToStates  []string `json:"expect_to_states"`
	ExpectWorkers   []string `json:"expect_workers"`
	ExpectOperators []string `json:"expect_operators"`
	ExpectAttempts  []int32  `json:"expect_attempts"`

	// worker
	Worker string                    `json:"worker"`
	Labels map[string]string         `json:"labels"`
	Handle map[string][]handlerEntry `json:"handle"` // by task id, one entry per call
	Until  map[string]string         `json:"until"`  // task id -> state name

	// cooperative_kill (with Worker, Labels and TaskID)
	LeaseSeconds int             `json:"lease_seconds"`
	Kill         json.RawMessage `json:"kill"` // a KillTaskRequest in the protobuf JSON mapping

	DisconnectAfterEvents int `json:"disconnect_after_events"`
}

// handlerEntry is what the worker step's handler does on one call for a task: check the
// input, then fail or complete.
type handlerEntry struct {
	ExpectInput json.RawMessage `json:"expect_input"` // a TaskPayload in the protobuf JSON mapping
	Fail        *struct {
		ErrorType    string `json:"errorType"`
		Message      string `json:"message"`
		ExitCode     int    `json:"exitCode"`
		NonRetryable bool   `json:"nonRetryable"`
	} `json:"fail"`
	Complete *struct {
		Result json.RawMessage `json:"result"` // a TaskPayload
	} `json:"complete"`
}

// expectedError is what a failing call's typed error must say.
type expectedError struct {
	Kind           string   `json:"kind"` // invalid_transition, version_mismatch, not_found or tasklife_error
	Code           string   `json:"code"`
	Reason         string   `json:"reason"`
	CurrentState   string   `json:"current_state"`
	AllowedActions []string `json:"allowed_actions"`
	CurrentVersion *int64   `json:"current_version"`
}

// rawScenario is the file with each step left as JSON, because a step's placeholders can
// only be filled in once the steps before it have run.
type rawScenario struct {
	Description string            `json:"description"`
	Steps       []json.RawMessage `json:"steps"`
}

func loadScenario(t *testing.T) rawScenario {
	t.Helper()
	data, err := os.ReadFile(scenarioPath)
	if err != nil {
		t.Fatalf("read the conformance scenario: %v", err)
	}
	var scenario rawScenario
	if err := strictUnmarshal(data, &scenario); err != nil {
		t.Fatalf("parse %s: %v", scenarioPath, err)
	}
	if len(scenario.Steps) == 0 {
		t.Fatalf("%s has no steps", scenarioPath)
	}
	return scenario
}

var cursorPlaceholder = regexp.MustCompile(`\$\{cursor:([^}]*)\}`)

// substitute fills in ${run} and ${cursor:STEP} (the event.cursor of STEP's response).
func substitute(raw json.RawMessage, run string, cursorOf func(step string) (string, error)) (json.RawMessage, error) {
	text := strings.ReplaceAll(string(raw), "${run}", jsonEscape(run))
	var failure error
	text = cursorPlaceholder.ReplaceAllStringFunc(text, func(placeholder string) string {
		cursor, err := cursorOf(cursorPlaceholder.FindStringSubmatch(placeholder)[1])
		if err != nil && failure == nil {
			failure = err
		}
		return jsonEscape(cursor)
	})
	if strings.Contains(text, "${") && failure == nil {
		failure = fmt.Errorf("unknown placeholder left in %s", text)
	}
	return json.RawMessage(text), failure
}

// jsonEscape makes s safe inside a JSON string literal (cursors are opaque).
func jsonEscape(s string) string {
	quoted, _ := json.Marshal(s)
	return string(quoted[1 : len(quoted)-1])
}

func strictUnmarshal(data []byte, into any) error {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	return decoder.Decode(into)
}
