package tasklife

import (
	"crypto/tls"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// DefaultTimeout bounds every unary call whose context has no deadline of its own,
// unless [WithDefaultTimeout] says otherwise.
const DefaultTimeout = 30 * time.Second

// An Option configures [Connect].
type Option func(*settings)

type settings struct {
	tls            *tls.Config // nil: plaintext
	caFile         string      // PEM bundle to trust, loaded by Connect
	caPEM          []byte      // PEM bundle to trust, given in memory
	certFile       string      // client certificate chain (mutual TLS), loaded by Connect
	keyFile        string      // its private key
	serverName     string      // the name to verify the server certificate against
	defaultTimeout time.Duration
	operator       string
	token          *bearerToken // nil: no authorization metadata
	// perRPCCredentials: WithPerRPCCredentials was given (credentials of the caller's own).
	perRPCCredentials bool
	dialOptions       []grpc.DialOption
}

// identifiesCaller: the calls carry an operator of their own or credentials, either of
// which says who the caller is, so a worker must not name another operator.
func (s *settings) identifiesCaller() bool {
	clientCertificate := s.certFile != "" || s.tls != nil && (len(s.tls.Certificates) > 0 || s.tls.GetClientCertificate != nil)
	return s.operator != "" || s.token != nil || s.perRPCCredentials || clientCertificate
}

// useTLS makes the connection TLS (with the system's root CAs unless told otherwise).
func (s *settings) useTLS() {
	if s.tls == nil {
		s.tls = &tls.Config{MinVersion: tls.VersionTLS12}
	}
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
		s.useTLS()
		s.caFile = path
	}
}

// WithTLSCAPEM connects over TLS and trusts the certificate authorities in pem, a PEM
// bundle held in memory (instead of the system's). Connect fails if it holds no certificate.
// Given with [WithTLSCAFile], both are trusted.
func WithTLSCAPEM(pem []byte) Option {
	return func(s *settings) {
		s.useTLS()
		s.caPEM = append([]byte(nil), pem...)
	}
}

// WithTLSClientCertificate connects over TLS and presents the certificate chain in certFile
// with the private key in keyFile (both PEM), for a server that requires mutual TLS. With
// mutual TLS the certificate's common name is the caller's principal. Connect fails if the
// files cannot be read or do not match.
func WithTLSClientCertificate(certFile, keyFile string) Option {
	return func(s *settings) {
		s.useTLS()
		s.certFile, s.keyFile = certFile, keyFile
	}
}

// WithTLSServerName connects over TLS and verifies the server's certificate against name
// instead of the host of the address (for example when connecting by IP address, or
// through a tunnel, to a server whose certificate names its DNS name). It is also the name
// sent in SNI.
func WithTLSServerName(name string) Option {
	return func(s *settings) {
		s.useTLS()
		s.serverName = name
	}
}

// WithBearerToken sends `authorization: Bearer <token>` on every call, watches included, to
// authenticate with a server that requires it (see docs/concepts/security.md). The token is
// a secret, so it is only ever sent over TLS: Connect fails unless a TLS option
// ([WithTLS], [WithTLSCAFile], ...) is given too. To send it over plaintext anyway, to a
// loopback server in development for instance, say so with [WithInsecureBearerToken].
func WithBearerToken(token string) Option {
	return func(s *settings) { s.token = &bearerToken{token: token, requireTLS: true} }
}

// WithInsecureBearerToken is [WithBearerToken] without the TLS requirement: the token is
// sent over a plaintext connection too, where anyone on the network path can read and
// replay it. Use it only for a server on loopback (or behind a trusted tunnel or sidecar
// that adds TLS). Over TLS it behaves exactly like WithBearerToken.
func WithInsecureBearerToken(token string) Option {
	return func(s *settings) { s.token = &bearerToken{token: token, requireTLS: false} }
}

// WithDefaultTimeout sets the deadline given to each unary call whose context has none.
// Zero or negative means no default deadline. Watches are never given one: they are
// meant to stay open.
func WithDefaultTimeout(d time.Duration) Option {
	return func(s *settings) { s.defaultTimeout = d }
}

// WithOperator sends name as the `tasklife-operator` request metadata on every call, so
// the server records it as the operator of requests whose operator field is empty. A
// server that authenticates callers records the authenticated principal instead, and
// refuses any other name (PERMISSION_DENIED / OPERATOR_MISMATCH): there, leave it out and
// put whom you act for in the requests' on_behalf_of.
func WithOperator(name string) Option {
	return func(s *settings) { s.operator = name }
}

// WithPerRPCCredentials sends creds with every call (a token that rotates, such as a
// short-lived JWT). It is grpc.WithPerRPCCredentials that also tells the client the caller
// has credentials, so that a [Worker] leaves the operator to the server (see
// WorkerOptions.Operator).
func WithPerRPCCredentials(creds credentials.PerRPCCredentials) Option {
	return func(s *settings) {
		s.perRPCCredentials = true
		s.dialOptions = append(s.dialOptions, grpc.WithPerRPCCredentials(creds))
	}
}

// WithDialOptions passes extra options to grpc.NewClient, after the wrapper's own (for
// example interceptors, keepalive parameters or a custom dialer).
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(s *settings) { s.dialOptions = append(s.dialOptions, opts...) }
}
