package tasklife

import (
	"context"
	"errors"
	"io"
	"iter"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// Reconnection delays after consecutive failed attempts; the first reconnect after a
// stream that delivered something is immediate.
const (
	firstReconnectDelay = 50 * time.Millisecond
	maxReconnectDelay   = 5 * time.Second
)

// Watcher reads a WatchTaskEvents subscription one event at a time and keeps it alive:
// when the stream breaks (UNAVAILABLE, the server ending it, or the underlying call being
// cancelled or dropped while the watch itself is still wanted) it opens a new one with
// after_cursor set to the last cursor received, so no event is missed or repeated.
//
// Next is not safe for concurrent use; Close may be called from any goroutine.
type Watcher struct {
	ctx     context.Context
	cancel  context.CancelFunc
	client  *Client
	request *pb.WatchTaskEventsRequest // filters; Start is replaced when resuming

	stream       grpc.ServerStreamingClient[pb.WatchTaskEventsResponse]
	cancelStream context.CancelFunc

	pending       []*pb.TaskEvent // received but not yet returned by Next
	pendingCursor string          // the cursor of the message pending came in
	cursor        string          // resume point: after the last event returned, or the last progress
	reconnects    int
}

// Watch subscribes to committed task changes as req describes (start point and filters)
// and returns once the server has confirmed the subscription with its first message, so
// a change made after Watch returns is always seen, even when req starts "from now".
// The watch lasts until ctx ends or Close is called; no default deadline applies.
//
// A stream that breaks before it was confirmed is simply opened again, like one that
// breaks later. Errors the server reports (INVALID_ARGUMENT, OUT_OF_RANGE for a cursor
// no longer retained) are returned as they are.
func (c *Client) Watch(ctx context.Context, req *pb.WatchTaskEventsRequest) (*Watcher, error) {
	ctx, cancel := context.WithCancel(ctx)
	w := &Watcher{ctx: ctx, cancel: cancel, client: c, request: proto.Clone(req).(*pb.WatchTaskEventsRequest)}
	if err := w.open(); err != nil {
		cancel()
		return nil, err
	}
	return w, nil
}

// Next returns the next event, waiting for it as long as the watch lasts. It returns
// the context's error once the watch's context ends or Close was called, and a
// decoded Tasklife error if the server refuses to resume.
func (w *Watcher) Next() (*pb.TaskEvent, error) {
	for len(w.pending) == 0 {
		if err := w.receive(); err != nil {
			return nil, err
		}
	}
	event := w.pending[0]
	w.pending = w.pending[1:]
	// Within a message each event's own cursor resumes right after it; after the last,
	// the message's cursor also skips the non-matching events the server passed over.
	w.cursor = event.GetCursor()
	if len(w.pending) == 0 && w.pendingCursor != "" {
		w.cursor = w.pendingCursor
	}
	return event, nil
}

// Events ranges over the watch: each event with a nil error, then at most one error
// (none when the loop is left early).
func (w *Watcher) Events() iter.Seq2[*pb.TaskEvent, error] {
	return func(yield func(*pb.TaskEvent, error) bool) {
		for {
			event, err := w.Next()
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(event, nil) {
				return
			}
		}
	}
}

// Cursor is the position after the last event Next returned (or after the last progress
// message): pass it as after_cursor to continue this watch later.
func (w *Watcher) Cursor() string { return w.cursor }

// Reconnects is how many times the watch had to open a new stream after the first.
func (w *Watcher) Reconnects() int { return w.reconnects }

// Close ends the watch; Next then returns context.Canceled.
func (w *Watcher) Close() {
	w.cancel()
}

// receive reads one message into pending, reconnecting as often as needed.
func (w *Watcher) receive() error {
	message, err := w.stream.Recv()
	if err == nil {
		w.accept(message)
		return nil
	}
	if !w.resumable(err) {
		return w.finalError(err)
	}
	w.reconnects++
	return w.open()
}

// accept takes a message: its events wait in pending; a progress message moves the cursor.
func (w *Watcher) accept(message *pb.WatchTaskEventsResponse) {
	if len(message.GetEvents()) == 0 {
		if message.GetCursor() != "" {
			w.cursor = message.GetCursor()
		}
		return
	}
	w.pending = message.GetEvents()
	w.pendingCursor = message.GetCursor()
}

// open starts a stream from the resume point and waits for its first message, retrying
// with growing delays while the failures are ones a new stream can cure.
func (w *Watcher) open() error {
	delay := time.Duration(0)
	for {
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-w.ctx.Done():
				return w.ctx.Err()
			}
		}
		err := w.openOnce()
		if err == nil {
			return nil
		}
		if !w.resumable(err) {
			return w.finalError(err)
		}
		delay = min(max(2*delay, firstReconnectDelay), maxReconnectDelay)
	}
}

func (w *Watcher) openOnce() error {
	if w.cancelStream != nil {
		w.cancelStream() // release the broken stream
	}
	request := proto.Clone(w.request).(*pb.WatchTaskEventsRequest)
	if w.cursor != "" {
		request.Start = &pb.WatchTaskEventsRequest_AfterCursor{AfterCursor: w.cursor}
	}
	ctx, cancel := w.client.callContext(w.ctx, false)
	w.cancelStream = cancel
	stream, err := w.client.stub.WatchTaskEvents(ctx, request)
	if err != nil {
		return err
	}
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	w.stream = stream
	w.accept(first)
	return nil
}

// resumable tells a broken stream (open a new one) from an answer (give it to the caller).
func (w *Watcher) resumable(err error) bool {
	if w.ctx.Err() != nil {
		return false // the caller ended the watch
	}
	if w.client.conn.GetState() == connectivity.Shutdown {
		return false // the caller closed the client
	}
	if errors.Is(err, io.EOF) {
		return true // the server ended the stream without an error; it never should
	}
	switch status.Code(err) {
	case codes.Unavailable: // connection lost, server stopping (SERVER_SHUTTING_DOWN), database down
		return true
	case codes.Canceled: // the underlying call was cancelled, but not by the caller
		return true
	}
	return false
}

func (w *Watcher) finalError(err error) error {
	if w.ctx.Err() != nil {
		return w.ctx.Err()
	}
	return DecodeError(err)
}
