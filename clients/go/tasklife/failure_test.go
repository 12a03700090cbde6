package tasklife_test

// DescribeFailure: how a handler's error becomes the TaskFailure the Worker reports. Offline.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

func TestDescribeFailureOfAPlainErrorIsItsTypeWithoutPointerAndItsText(t *testing.T) {
	err := &fs.PathError{Op: "open", Path: "/data/in.csv", Err: fs.ErrNotExist}
	want := &pb.TaskFailure{ErrorType: "fs.PathError", Message: "open /data/in.csv: file does not exist"}
	if got := tasklife.DescribeFailure(err); !proto.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestDescribeFailureLooksThroughTheWrappingOfFmtErrorf(t *testing.T) {
	err := fmt.Errorf("load: %w", fmt.Errorf("read header: %w", &fs.PathError{Op: "read", Path: "x", Err: io.ErrUnexpectedEOF}))
	if got := tasklife.DescribeFailure(err); got.GetErrorType() != "fs.PathError" || got.GetMessage() != err.Error() {
		t.Fatalf("got type %q message %q, want fs.PathError and the whole text", got.GetErrorType(), got.GetMessage())
	}
}

func TestDescribeFailureTakesEveryFieldOfAFailureFoundInTheChain(t *testing.T) {
	details := tasklife.TextPayload("row 7")
	err := fmt.Errorf("step 2: %w", &tasklife.Failure{Type: "DiskFull", Message: "no space", ExitCode: 28, NonRetryable: true, Details: details})
	want := &pb.TaskFailure{ErrorType: "DiskFull", Message: "step 2: no space", ExitCode: proto.Int32(28), NonRetryable: true, Details: details}
	if got := tasklife.DescribeFailure(err); !proto.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestDescribeFailureOfAFailureWithoutTypeTakesItsCausesType(t *testing.T) {
	err := &tasklife.Failure{NonRetryable: true, Err: &fs.PathError{Op: "open", Path: "x", Err: fs.ErrPermission}}
	if got := tasklife.DescribeFailure(err); got.GetErrorType() != "fs.PathError" || !got.GetNonRetryable() || got.GetMessage() != "open x: permission denied" {
		t.Fatalf("got %v, want fs.PathError, non-retryable, with the cause's text", got)
	}
}

func TestDescribeFailureTakesTheExitCodeOfAProcessThatExitedWithOne(t *testing.T) {
	err := exec.Command("sh", "-c", "exit 3").Run()
	got := tasklife.DescribeFailure(fmt.Errorf("convert: %w", err))
	if got.GetErrorType() != "exec.ExitError" || got.ExitCode == nil || got.GetExitCode() != 3 || got.GetMessage() != "convert: exit status 3" {
		t.Fatalf("got %v, want exec.ExitError with exit code 3", got)
	}
}

func TestDescribeFailurePrefersTheFailuresExitCodeToTheProcesss(t *testing.T) {
	err := &tasklife.Failure{ExitCode: 70, Err: exec.Command("sh", "-c", "exit 3").Run()}
	if got := tasklife.DescribeFailure(err); got.GetExitCode() != 70 {
		t.Fatalf("exit code %d, want the Failure's 70", got.GetExitCode())
	}
}

func TestDescribeFailureMakesAnErrorTypeMatchThePatternAndCutsItTo128Characters(t *testing.T) {
	for _, c := range []struct{ given, want string }{
		{"DiskFull", "DiskFull"},
		{"io.timeout:read-1", "io.timeout:read-1"},
		{"9 bad type/ü", "E9_bad_type__"},
		{"_private", "E_private"},
		{"pkg.Box[int]", "pkg.Box_int_"},
		{strings.Repeat("x", 200), strings.Repeat("x", 128)},
	} {
		if got := tasklife.DescribeFailure(&tasklife.Failure{Type: c.given}).GetErrorType(); got != c.want {
			t.Errorf("type %q recorded as %q, want %q", c.given, got, c.want)
		}
	}
}

// genericError has a type name with characters the pattern does not allow.
type genericError[T any] struct{ value T }

func (e genericError[T]) Error() string { return fmt.Sprint(e.value) }

func TestDescribeFailureSanitisesTheTypeNameOfAPlainError(t *testing.T) {
	if got := tasklife.DescribeFailure(genericError[int]{7}).GetErrorType(); got != "tasklife_test.genericError_int_" {
		t.Fatalf("error type %q, want tasklife_test.genericError_int_", got)
	}
}

func TestDescribeFailureCutsTheMessageTo4KiBOnACharacterBoundaryAndReplacesNUL(t *testing.T) {
	got := tasklife.DescribeFailure(errors.New("a\x00" + strings.Repeat("é", 3000))).GetMessage()
	// "a" and U+FFFD (3 bytes) leave 4092 bytes: 2046 characters of two bytes.
	if want := "a\uFFFD" + strings.Repeat("é", 2046); got != want || !utf8.ValidString(got) {
		t.Fatalf("message of %d bytes starting %q, want %d bytes", len(got), got[:8], len(want))
	}
}

// stackError formats a stack with %+v, as errors of github.com/pkg/errors do.
type stackError struct{}

func (stackError) Error() string { return "broken" }

func (e stackError) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('+') {
		io.WriteString(f, "broken\nmain.load\n\t/src/main.go:12")
		return
	}
	io.WriteString(f, e.Error())
}

func TestDescribeFailureTakesTheStackAnErrorFormatsWithPlusV(t *testing.T) {
	if got := tasklife.DescribeFailure(stackError{}).GetStackTrace(); got != "broken\nmain.load\n\t/src/main.go:12" {
		t.Fatalf("stack trace %q, want what %%+v prints", got)
	}
}

func TestDescribeFailureOfAnErrorWithoutAStackHasNone(t *testing.T) {
	if got := tasklife.DescribeFailure(errors.New("plain")).GetStackTrace(); got != "" {
		t.Fatalf("stack trace %q, want none", got)
	}
}

func TestJSONPayloadIsTheEncodingOfItsValueAsApplicationJSON(t *testing.T) {
	payload, err := tasklife.JSONPayload(map[string]int{"rows": 1234})
	if err != nil || string(payload.GetData()) != `{"rows":1234}` || payload.GetContentType() != "application/json" {
		t.Fatalf("got %v (%v)", payload, err)
	}
}
