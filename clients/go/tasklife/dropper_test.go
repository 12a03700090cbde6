package tasklife_test

import (
	"context"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// streamDropper is a client stream interceptor through which a test cancels the current
// underlying WatchTaskEvents call, as a failing network or proxy would, behind the
// Watcher's back. It also records each stream's request, to show how a watch resumed.
type streamDropper struct {
	mu       sync.Mutex
	cancel   context.CancelFunc
	requests []*pb.WatchTaskEventsRequest
}

func (d *streamDropper) dialOption() grpc.DialOption {
	return grpc.WithChainStreamInterceptor(d.intercept)
}

func (d *streamDropper) intercept(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn,
	method string, streamer grpc.Streamer, opts ...grpc.CallOption,
) (grpc.ClientStream, error) {
	ctx, cancel := context.WithCancel(ctx)
	stream, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		cancel()
		return nil, err
	}
	d.mu.Lock()
	d.cancel = cancel
	d.mu.Unlock()
	return &recordingStream{ClientStream: stream, dropper: d}, nil
}

// drop cancels the stream opened last.
func (d *streamDropper) drop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cancel != nil {
		d.cancel()
	}
}

// watchRequests are the requests of every stream opened so far, oldest first.
func (d *streamDropper) watchRequests() []*pb.WatchTaskEventsRequest {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*pb.WatchTaskEventsRequest(nil), d.requests...)
}

type recordingStream struct {
	grpc.ClientStream
	dropper *streamDropper
}

func (s *recordingStream) SendMsg(m any) error {
	if request, ok := m.(*pb.WatchTaskEventsRequest); ok {
		s.dropper.mu.Lock()
		s.dropper.requests = append(s.dropper.requests, proto.Clone(request).(*pb.WatchTaskEventsRequest))
		s.dropper.mu.Unlock()
	}
	return s.ClientStream.SendMsg(m)
}
