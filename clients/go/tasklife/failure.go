package tasklife

import (
	"errors"
	"fmt"
	"math"
	"os/exec"
	"reflect"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// The limits of a TaskFailure the server accepts (docs/reference/limits.md), in UTF-8 bytes.
const (
	maxErrorType      = 128
	maxFailureMessage = 4 * 1024
	maxStackTrace     = 32 * 1024
	// maxFailureReason bounds the reason of a FailTask the worker sends: a short human line.
	maxFailureReason = 1024
)

// The error types the Worker itself reports.
const (
	// PanicErrorType is the error_type of a handler that panicked (unless it panicked with
	// a [*Failure] that names its Type).
	PanicErrorType = "panic"
	// InvalidResultErrorType is the error_type of a task whose result the server refused
	// (too large, a bad content type): the Worker fails it, non-retryable, instead of
	// leaving it running.
	InvalidResultErrorType = "tasklife.InvalidResult"
	// WorkerStoppingErrorType is the error_type of a task whose handler outlived the grace
	// period of a stop.
	WorkerStoppingErrorType = "tasklife.WorkerStopping"
)

// Failure is an error a handler returns (or wraps, or panics with) to say how its failure
// is recorded: its type, an exit code, whether it may be retried, details. Every field is
// optional; [errors.As] finds it anywhere in the returned error's chain:
//
//	if errors.Is(err, fs.ErrPermission) {
//		return &tasklife.Failure{Type: "NoAccess", NonRetryable: true, Err: err}
//	}
type Failure struct {
	// Type is the failure's error_type, for grouping ("DiskFull", "io.timeout"). Empty: the
	// type of Err, or none when Err is nil too. Characters outside [A-Za-z0-9_.:-] are
	// replaced with '_' (see [DescribeFailure]).
	Type string
	// Message is the text of the failure; with Err it is followed by ": " and Err's text.
	Message string
	// ExitCode is the exit code of the process that failed; 0 means none (0 is success).
	// Without it, the exit code of an [*exec.ExitError] in Err's chain is used.
	ExitCode int
	// NonRetryable keeps the task from being retried, whatever its retry policy allows.
	NonRetryable bool
	// Details is anything else to keep with the failure (at most 64 KiB): for example
	// tasklife.JSONPayload of the offending record.
	Details *pb.TaskPayload
	// Err is the cause, if any: Unwrap returns it.
	Err error
}

func (f *Failure) Error() string {
	switch {
	case f.Message != "" && f.Err != nil:
		return f.Message + ": " + f.Err.Error()
	case f.Message != "":
		return f.Message
	case f.Err != nil:
		return f.Err.Error()
	case f.Type != "":
		return f.Type
	}
	return "tasklife: failure"
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (f *Failure) Unwrap() error { return f.Err }

// DescribeFailure is the TaskFailure the [Worker] reports for a handler's error (nil for a
// nil error). For loops of your own, it is what to put in FailTaskRequest.Failure:
//
//   - error_type: the Type of a [*Failure] in err's chain; for a panic, "panic"; otherwise
//     the name of err's dynamic type without its leading "*", as package.Type
//     (*fs.PathError gives "fs.PathError"), looking through the wrapping of fmt.Errorf's %w
//     (fmt.Errorf("open config: %w", pathErr) gives "fs.PathError" too). A name that does
//     not match [A-Za-z][A-Za-z0-9_.:-]{0,127} is made to: other characters become '_', a
//     leading character that is not a letter gets an "E" before it, and it is cut to 128.
//   - message: err's text (a panic: its value).
//   - stack_trace: a panic's stack (runtime/debug.Stack); otherwise what fmt's %+v prints
//     when it differs from the text, as it does for errors that carry a stack.
//   - exit_code: a [*Failure]'s ExitCode, otherwise that of an [*exec.ExitError] in err's
//     chain (a process killed by a signal has none).
//   - non_retryable and details: a [*Failure]'s.
//
// Texts are made valid UTF-8 without NUL (each becomes U+FFFD) and cut on a character
// boundary to the server's limits: message 4 KiB, stack_trace 32 KiB.
func DescribeFailure(err error) *pb.TaskFailure {
	if err == nil {
		return nil
	}
	var explicit *Failure
	errors.As(err, &explicit)
	failure := &pb.TaskFailure{
		ErrorType:  sanitizeErrorType(failureType(err, explicit)),
		Message:    fitText(failureText(err), maxFailureMessage),
		StackTrace: fitText(stackTraceOf(err), maxStackTrace),
		ExitCode:   exitCodeOf(err, explicit),
	}
	if explicit != nil {
		failure.NonRetryable = explicit.NonRetryable
		failure.Details = explicit.Details
	}
	return failure
}

// failureReason is the FailTask reason for a failure, "<error_type>: <message>" (or the
// message alone, without a type), at most maxFailureReason bytes.
func failureReason(failure *pb.TaskFailure) string {
	if failure.GetErrorType() == "" {
		return fitText(failure.GetMessage(), maxFailureReason)
	}
	return fitText(failure.GetErrorType()+": "+failure.GetMessage(), maxFailureReason)
}

// handlerPanic is a recovered panic of a handler, with the stack where it happened. It
// unwraps to the panic's value when that is an error, so that a handler can panic with a
// [*Failure] too.
type handlerPanic struct {
	value any
	stack string
}

func (p *handlerPanic) Error() string { return fmt.Sprintf("panic: %v", p.value) }

func (p *handlerPanic) Unwrap() error {
	err, _ := p.value.(error)
	return err
}

func failureType(err error, explicit *Failure) string {
	_, panicked := err.(*handlerPanic)
	switch {
	case explicit != nil && explicit.Type != "":
		return explicit.Type
	case panicked:
		return PanicErrorType
	case explicit != nil && explicit.Err != nil:
		return errorTypeName(explicit.Err)
	case explicit != nil: // a Failure that names no type, and wraps nothing to name one
		return ""
	}
	return errorTypeName(err)
}

// fmtWrappers are the types fmt.Errorf returns for %w: they only add context to the text,
// so the type of what they wrap says more about the failure.
var fmtWrappers = map[reflect.Type]bool{
	reflect.TypeOf(fmt.Errorf("%w", errors.New(""))):                    true,
	reflect.TypeOf(fmt.Errorf("%w %w", errors.New(""), errors.New(""))): true,
}

// errorTypeName is "package.Type" of err's dynamic type, pointers left out, looking
// through fmt.Errorf's wrapping.
func errorTypeName(err error) string {
	for fmtWrappers[reflect.TypeOf(err)] {
		var inner error
		switch wrapper := err.(type) {
		case interface{ Unwrap() error }:
			inner = wrapper.Unwrap()
		case interface{ Unwrap() []error }:
			if wrapped := wrapper.Unwrap(); len(wrapped) > 0 {
				inner = wrapped[0]
			}
		}
		if inner == nil {
			break
		}
		err = inner
	}
	t := reflect.TypeOf(err)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.String()
}

// sanitizeErrorType makes name match [A-Za-z][A-Za-z0-9_.:-]{0,127} (or stay empty): a
// type is never dropped, so that failures still group by it.
func sanitizeErrorType(name string) string {
	if name == "" {
		return ""
	}
	var b strings.Builder
	for _, r := range name {
		if isErrorTypeChar(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	sanitized := b.String()
	if first := sanitized[0]; !('a' <= first && first <= 'z' || 'A' <= first && first <= 'Z') {
		sanitized = "E" + sanitized
	}
	return sanitized[:min(len(sanitized), maxErrorType)] // ASCII only by now: any cut is a boundary
}

func isErrorTypeChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("_.:-", r)
}

func failureText(err error) string {
	if p, ok := err.(*handlerPanic); ok {
		return fmt.Sprint(p.value)
	}
	return err.Error()
}

func stackTraceOf(err error) string {
	if p, ok := err.(*handlerPanic); ok {
		return p.stack
	}
	if formatted := fmt.Sprintf("%+v", err); formatted != err.Error() {
		return formatted
	}
	return ""
}

func exitCodeOf(err error, explicit *Failure) *int32 {
	if explicit != nil && explicit.ExitCode != 0 && explicit.ExitCode >= math.MinInt32 && explicit.ExitCode <= math.MaxInt32 {
		return proto.Int32(int32(explicit.ExitCode))
	}
	var exited *exec.ExitError
	if errors.As(err, &exited) && exited.ExitCode() > 0 { // -1: killed by a signal, no exit code
		return proto.Int32(int32(exited.ExitCode()))
	}
	return nil
}

// fitText makes s fit a text field of at most n bytes: bytes that are not UTF-8 and NUL
// characters (which the server refuses) become U+FFFD, then it is cut without splitting a
// character.
func fitText(s string, n int) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
