// Package tasklife is the Go client of the Tasklife task lifecycle service.
//
// It is a thin layer over the generated gRPC stubs in package tasklifev1: requests and
// responses are the generated messages, and every RPC of tasklife.v1.TaskService is a
// method of [Client]. The layer adds what every caller would otherwise write again:
//
//   - [Connect]: plaintext or TLS (a CA file or PEM, a client certificate for mutual TLS,
//     a server name override), a bearer token for servers that authenticate callers
//     ([WithBearerToken]), and a default per-call deadline;
//   - typed errors decoded from the google.rpc.Status details: [InvalidTransitionError],
//     [VersionMismatchError], [NotFoundError], [UnauthenticatedError],
//     [PermissionDeniedError], [ResourceExhaustedError], and [Error] for every other failure;
//   - [CompareAndSwap]: a transition that, when asked, re-reads the task and retries
//     with the fresh expected_version after a VERSION_MISMATCH;
//   - [Client.Watch]: a WatchTaskEvents stream that resumes by itself from the last
//     cursor it received when the stream breaks, never delivering an event twice;
//   - [Client.AllTasks], [Client.AllTaskEvents], [Client.AllTaskAttempts] and
//     [Client.AllTaskFailures]: iterators that follow page tokens;
//   - [TransitionItem] and [ResultError]: building BatchTransitionTasks items, and reading
//     each batch result's refusal as the typed error its single RPC would return;
//   - [BytesPayload], [TextPayload] and [JSONPayload]: a task's input or result;
//   - [Worker]: claims tasks ([Client.ClaimTasks]), runs a [Handler] (or a [ResultHandler],
//     which returns the task's result) on each with the task's input and a context
//     cancelled when the task is taken away, keeps the leases alive, reports the outcomes in
//     batches (a handler's error as a typed failure: [Failure], [DescribeFailure]), and
//     stops gracefully.
package tasklife
