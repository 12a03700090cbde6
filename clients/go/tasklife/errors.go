package tasklife

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// Domain is the google.rpc.ErrorInfo domain of every error the Tasklife server produces.
const Domain = "tasklife.dev"

// The google.rpc.ErrorInfo reasons the server uses (docs/reference/errors.md).
const (
	ReasonInvalidRequest         = "INVALID_REQUEST"
	ReasonTaskNotFound           = "TASK_NOT_FOUND"
	ReasonInvalidTransition      = "INVALID_TRANSITION"
	ReasonVersionMismatch        = "VERSION_MISMATCH"
	ReasonRequestIDReused        = "REQUEST_ID_REUSED"
	ReasonTaskAlreadyExists      = "TASK_ALREADY_EXISTS"
	ReasonReferencedTaskNotFound = "REFERENCED_TASK_NOT_FOUND"
	ReasonDependenciesNotMet     = "DEPENDENCIES_NOT_MET"
	ReasonLeaseLost              = "LEASE_LOST"
	ReasonCursorNotRetained      = "CURSOR_NOT_RETAINED"
	ReasonHistoryNotRetained     = "HISTORY_NOT_RETAINED"
	ReasonBatchTooLarge          = "BATCH_TOO_LARGE"
	ReasonServerShuttingDown     = "SERVER_SHUTTING_DOWN"
	ReasonDatabaseUnavailable    = "DATABASE_UNAVAILABLE"
	ReasonInternal               = "INTERNAL"
	// Only from a server that authenticates callers (docs/concepts/security.md).
	ReasonCredentialsMissing  = "CREDENTIALS_MISSING"
	ReasonCredentialsInvalid  = "CREDENTIALS_INVALID"
	ReasonRoleNotGranted      = "ROLE_NOT_GRANTED"
	ReasonNamespaceNotGranted = "NAMESPACE_NOT_GRANTED"
	ReasonOperatorMismatch    = "OPERATOR_MISMATCH"
	ReasonTooManyStreams      = "TOO_MANY_STREAMS"
)

// Error is any failed call: the gRPC status, plus what its google.rpc.ErrorInfo says when
// it has one with domain tasklife.dev. Errors the server did not produce (a dropped
// connection, a deadline) have an empty Reason.
//
// The failures a caller most often branches on get their own types, which wrap an *Error:
// [InvalidTransitionError], [VersionMismatchError] and [NotFoundError] by reason, and
// [UnauthenticatedError], [PermissionDeniedError] and [ResourceExhaustedError] by status
// code. errors.As(err, &e) with e an *Error matches all of them.
type Error struct {
	Code     codes.Code
	Reason   string            // ErrorInfo.reason, e.g. ReasonInvalidRequest; "" without ErrorInfo
	Metadata map[string]string // ErrorInfo.metadata; never nil
	Message  string            // for people: do not parse it
	// Details are every decoded detail of the status, ErrorInfo included: for example
	// *errdetails.BadRequest, *errdetails.PreconditionFailure, *errdetails.ResourceInfo.
	Details []any

	status *status.Status
}

func (e *Error) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("tasklife: %s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("tasklife: %s (%s): %s", e.Reason, e.Code, e.Message)
}

// GRPCStatus lets status.FromError and status.Code see the original status.
func (e *Error) GRPCStatus() *status.Status { return e.status }

// BadRequest returns the field violations of an INVALID_REQUEST, or nil.
func (e *Error) BadRequest() *errdetails.BadRequest {
	for _, d := range e.Details {
		if br, ok := d.(*errdetails.BadRequest); ok {
			return br
		}
	}
	return nil
}

// InvalidTransitionError is FAILED_PRECONDITION / INVALID_TRANSITION: the action is not
// allowed from the task's current state. Do not retry it unchanged.
type InvalidTransitionError struct {
	TaskID          string
	CurrentState    pb.TaskState
	RequestedAction string   // the RPC name, e.g. "CompleteTask"
	AllowedActions  []string // the RPC names allowed now, in the server's table order; empty when final
	err             *Error
}

func (e *InvalidTransitionError) Error() string { return e.err.Error() }
func (e *InvalidTransitionError) Unwrap() error { return e.err }

// VersionMismatchError is ABORTED / VERSION_MISMATCH: the task moved since it was read.
// Nothing was written; re-read, decide again, and retry with CurrentVersion (or let
// [CompareAndSwap] do it).
type VersionMismatchError struct {
	TaskID          string
	ExpectedVersion int64
	CurrentVersion  int64
	CurrentState    pb.TaskState
	err             *Error
}

func (e *VersionMismatchError) Error() string { return e.err.Error() }
func (e *VersionMismatchError) Unwrap() error { return e.err }

// NotFoundError is NOT_FOUND / TASK_NOT_FOUND: no task has this id.
type NotFoundError struct {
	TaskID string
	err    *Error
}

func (e *NotFoundError) Error() string { return e.err.Error() }
func (e *NotFoundError) Unwrap() error { return e.err }

// UnauthenticatedError is UNAUTHENTICATED: the server requires credentials and the call
// carried none (ReasonCredentialsMissing) or ones it refuses (ReasonCredentialsInvalid: an
// unknown token, an expired or badly signed JWT, a malformed authorization value). Retrying
// with the same credentials fails the same way. Reason is "" when the status did not come
// from Tasklife (a proxy's, say).
type UnauthenticatedError struct {
	Reason   string
	Metadata map[string]string // ErrorInfo.metadata; never nil
	err      *Error
}

func (e *UnauthenticatedError) Error() string { return e.err.Error() }
func (e *UnauthenticatedError) Unwrap() error { return e.err }

// PermissionDeniedError is PERMISSION_DENIED: the caller is authenticated but may not do
// this. Reason says why: ReasonRoleNotGranted (Metadata "method", "granting_roles"),
// ReasonNamespaceNotGranted (Metadata "namespace") or ReasonOperatorMismatch (Metadata
// "operator": the name the request gave instead of the principal's). Nothing was written.
type PermissionDeniedError struct {
	Reason    string
	Principal string            // the authenticated caller, from Metadata "principal"
	Metadata  map[string]string // ErrorInfo.metadata; never nil
	err       *Error
}

func (e *PermissionDeniedError) Error() string { return e.err.Error() }
func (e *PermissionDeniedError) Unwrap() error { return e.err }

// ResourceExhaustedError is RESOURCE_EXHAUSTED. With ReasonTooManyStreams the principal
// already holds Limit open watches on that server process: close one and retry. With an
// empty Reason it is one of gRPC's own limits, such as a message larger than allowed.
type ResourceExhaustedError struct {
	Reason    string
	Principal string            // from Metadata "principal"; "" without one
	Limit     int               // from Metadata "limit"; 0 without one
	Metadata  map[string]string // ErrorInfo.metadata; never nil
	err       *Error
}

func (e *ResourceExhaustedError) Error() string { return e.err.Error() }
func (e *ResourceExhaustedError) Unwrap() error { return e.err }

// DecodeError turns a gRPC status error into the most specific Tasklife error type. Errors
// that carry no gRPC status (nil included) are returned unchanged. The client's methods
// already do this; use it with errors from [Client.Stub].
func DecodeError(err error) error {
	var decoded *Error
	if err == nil || errors.As(err, &decoded) {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	base := &Error{Code: st.Code(), Message: st.Message(), Metadata: map[string]string{}, status: st}
	for _, detail := range st.Details() {
		base.Details = append(base.Details, detail)
		if info, ok := detail.(*errdetails.ErrorInfo); ok && info.GetDomain() == Domain {
			base.Reason = info.GetReason()
			for k, v := range info.GetMetadata() {
				base.Metadata[k] = v
			}
		}
	}
	md := base.Metadata
	switch base.Reason {
	case ReasonInvalidTransition:
		return &InvalidTransitionError{
			TaskID:          md["task_id"],
			CurrentState:    parseState(md["current_state"]),
			RequestedAction: md["requested_action"],
			AllowedActions:  splitList(md["allowed_actions"]),
			err:             base,
		}
	case ReasonVersionMismatch:
		return &VersionMismatchError{
			TaskID:          md["task_id"],
			ExpectedVersion: parseVersion(md["expected_version"]),
			CurrentVersion:  parseVersion(md["current_version"]),
			CurrentState:    parseState(md["current_state"]),
			err:             base,
		}
	case ReasonTaskNotFound:
		return &NotFoundError{TaskID: md["task_id"], err: base}
	}
	switch base.Code {
	case codes.Unauthenticated:
		return &UnauthenticatedError{Reason: base.Reason, Metadata: md, err: base}
	case codes.PermissionDenied:
		return &PermissionDeniedError{Reason: base.Reason, Principal: md["principal"], Metadata: md, err: base}
	case codes.ResourceExhausted:
		limit, _ := strconv.Atoi(md["limit"])
		return &ResourceExhaustedError{Reason: base.Reason, Principal: md["principal"], Limit: limit, Metadata: md, err: base}
	}
	return base
}

// parseState reads an enum name such as TASK_STATE_READY; unknown names give UNSPECIFIED.
func parseState(name string) pb.TaskState {
	return pb.TaskState(pb.TaskState_value[name])
}

// parseVersion reads a decimal version; a missing or malformed one gives 0, which no task has.
func parseVersion(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// splitList reads a comma-separated metadata list; "" is the empty list, not [""].
func splitList(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}
