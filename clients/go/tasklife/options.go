package tasklife

import (
	"crypto/tls"
	"time"

	"google.golang.org/grpc"
)

// DefaultTimeout bounds every unary call whose context has no deadline of its own,
// unless [WithDefaultTimeout] says otherwise.
const DefaultTimeout = 30 * time.Second

// An Option configures [Connect].
type Option func(*settings)

type settings struct {
	tls            *tls.Config // nil: plaintext
	caFile         string      // PEM bundle to trust, loaded by Connect
	defaultTimeout time.Duration
	operator       string
	dialOptions    []grpc.DialOption
}

// WithTLS connects over TLS with cfg (nil: the system's root CAs). Without a TLS option
// the connection is plaintext, which suits the server's default loopback address.
func WithTLS(cfg *tls.Config) Option {
	return func(s *settings) {
		if cfg == nil {
			cfg = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		s.tls = cfg.Clone()
	}
}

// WithTLSCAFile connects over TLS and trusts the certificate authorities in the PEM file
// at path (instead of the system's). Connect fails if the file cannot be read or holds no
// certificate.
func WithTLSCAFile(path string) Option {
	return func(s *settings) {
		if s.tls == nil {
			s.tls = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		s.caFile = path
	}
}

// WithDefaultTimeout sets the deadline given to each unary call whose context has none.
// Zero or negative means no default deadline. Watches are never given one: they are
// meant to stay open.
func WithDefaultTimeout(d time.Duration) Option {
	return func(s *settings) { s.defaultTimeout = d }
}

// WithOperator sends name as the `tasklife-operator` request metadata on every call, so
// the server records it as the operator of requests whose operator field is empty.
func WithOperator(name string) Option {
	return func(s *settings) { s.operator = name }
}

// WithDialOptions passes extra options to grpc.NewClient, after the wrapper's own (for
// example interceptors, keepalive parameters or a custom dialer).
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(s *settings) { s.dialOptions = append(s.dialOptions, opts...) }
}
