package tasklife

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// authorizationMetadataKey is the request metadata a bearer token travels in.
const authorizationMetadataKey = "authorization"

// ErrBearerTokenNeedsTLS is returned by [Connect] for [WithBearerToken] without TLS.
var ErrBearerTokenNeedsTLS = errors.New("tasklife: WithBearerToken sends a secret, so it needs TLS " +
	"(WithTLS, WithTLSCAFile, WithTLSCAPEM, ...); to send it over plaintext to a loopback server, " +
	"use WithInsecureBearerToken")

// bearerToken is the grpc.PerRPCCredentials of [WithBearerToken] and
// [WithInsecureBearerToken]: it adds `authorization: Bearer <token>` to every call, unary or
// streaming.
type bearerToken struct {
	token      string
	requireTLS bool
}

func (b *bearerToken) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{authorizationMetadataKey: "Bearer " + b.token}, nil
}

// RequireTransportSecurity makes gRPC itself refuse to send the token over a connection
// without TLS, in addition to the check Connect makes.
func (b *bearerToken) RequireTransportSecurity() bool { return b.requireTLS }

// validate rejects a token that cannot be a header value, before it is ever sent.
func (b *bearerToken) validate() error {
	if b.token == "" {
		return errors.New("tasklife: the bearer token is empty")
	}
	for _, r := range b.token {
		if r <= ' ' || r > '~' {
			return errors.New("tasklife: the bearer token must be printable ASCII without spaces")
		}
	}
	return nil
}

func transportCredentials(s settings) (credentials.TransportCredentials, error) {
	if s.tls == nil {
		if s.token != nil && s.token.requireTLS {
			return nil, ErrBearerTokenNeedsTLS
		}
		return insecure.NewCredentials(), nil
	}
	cfg := s.tls.Clone()
	if s.caFile != "" || s.caPEM != nil {
		pool := x509.NewCertPool()
		if s.caFile != "" {
			pem, err := os.ReadFile(s.caFile)
			if err != nil {
				return nil, fmt.Errorf("tasklife: read CA file: %w", err)
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("tasklife: CA file %s holds no PEM certificate", s.caFile)
			}
		}
		if s.caPEM != nil && !pool.AppendCertsFromPEM(s.caPEM) {
			return nil, errors.New("tasklife: the CA PEM holds no certificate")
		}
		cfg.RootCAs = pool
	}
	if s.certFile != "" || s.keyFile != "" {
		pair, err := tls.LoadX509KeyPair(s.certFile, s.keyFile)
		if err != nil {
			return nil, fmt.Errorf("tasklife: load client certificate %s with key %s: %w", s.certFile, s.keyFile, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	if s.serverName != "" {
		cfg.ServerName = s.serverName
	}
	return credentials.NewTLS(cfg), nil
}
