package tasklife

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// operatorMetadataKey is the request metadata the server reads when a request's operator
// field is empty.
const operatorMetadataKey = "tasklife-operator"

// Client calls one Tasklife server. It is safe for concurrent use; Close it when done.
type Client struct {
	conn     *grpc.ClientConn
	stub     tasklifev1.TaskServiceClient
	settings settings
}

// Connect returns a client of the server at address (host:port). Like grpc.NewClient it
// does not wait for the connection: the first call does.
func Connect(address string, opts ...Option) (*Client, error) {
	s := settings{defaultTimeout: DefaultTimeout}
	for _, opt := range opts {
		opt(&s)
	}
	creds, err := transportCredentials(s)
	if err != nil {
		return nil, err
	}
	dialOptions := []grpc.DialOption{grpc.WithTransportCredentials(creds)}
	if s.token != nil {
		if err := s.token.validate(); err != nil {
			return nil, err
		}
		dialOptions = append(dialOptions, grpc.WithPerRPCCredentials(s.token))
	}
	dialOptions = append(dialOptions, s.dialOptions...)
	conn, err := grpc.NewClient(address, dialOptions...)
	if err != nil {
		return nil, fmt.Errorf("tasklife: connect to %s: %w", address, err)
	}
	return &Client{conn: conn, stub: tasklifev1.NewTaskServiceClient(conn), settings: s}, nil
}

// Close closes the connection; calls in flight fail with CANCELED.
func (c *Client) Close() error { return c.conn.Close() }

// Stub is the generated client on the same connection, for anything this package does
// not wrap. Its errors are plain gRPC status errors; [DecodeError] types them.
func (c *Client) Stub() tasklifev1.TaskServiceClient { return c.stub }

// callContext adds the default deadline (when ctx has none) and the operator metadata.
func (c *Client) callContext(ctx context.Context, withDeadline bool) (context.Context, context.CancelFunc) {
	if c.settings.operator != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, operatorMetadataKey, c.settings.operator)
	}
	if _, has := ctx.Deadline(); withDeadline && !has && c.settings.defaultTimeout > 0 {
		return context.WithTimeout(ctx, c.settings.defaultTimeout)
	}
	return context.WithCancel(ctx)
}

// unary makes one call through the stub with the client's defaults and types its error.
func unary[Req, Resp any](ctx context.Context, c *Client, call func(context.Context, Req, ...grpc.CallOption) (Resp, error), req Req) (Resp, error) {
	ctx, cancel := c.callContext(ctx, true)
	defer cancel()
	resp, err := call(ctx, req)
	if err != nil {
		var zero Resp
		return zero, DecodeError(err)
	}
	return resp, nil
}
