package tasklife_test

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// The principal of the authenticated test server (tests/clients/conftest.py): an admin of
// exactly one namespace, so a task created without a namespace lands in it.
const (
	securedPrincipal = "client-test"
	securedNamespace = "client-ns"
)

// securedServer is the address and token of the live server that authenticates callers:
// TASKLIFE_SECURED_ADDRESS and TASKLIFE_SECURED_TOKEN. Without them the test skips, except
// under CI=true, where it fails: the pytest bridge always sets them.
func securedServer(t testing.TB) (address, token string) {
	t.Helper()
	address, token = os.Getenv("TASKLIFE_SECURED_ADDRESS"), os.Getenv("TASKLIFE_SECURED_TOKEN")
	if address == "" || token == "" {
		message := "TASKLIFE_SECURED_ADDRESS and TASKLIFE_SECURED_TOKEN are not both set: no authenticated Tasklife server to test against"
		if os.Getenv("CI") == "true" {
			t.Fatal(message)
		}
		t.Skip(message)
	}
	return address, token
}

// connectTo returns a client of address, closed when the test ends.
func connectTo(t testing.TB, address string, opts ...tasklife.Option) *tasklife.Client {
	t.Helper()
	opts = append([]tasklife.Option{tasklife.WithDefaultTimeout(10 * time.Second)}, opts...)
	client, err := tasklife.Connect(address, opts...)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client
}

func TestBearerTokenAuthenticatesAgainstTheSecuredServer(t *testing.T) {
	address, token := securedServer(t)
	ctx := withTimeout(t, 30*time.Second)
	client := connectTo(t, address, tasklife.WithInsecureBearerToken(token))

	// CreateTask without a namespace: the principal's only namespace; the operator is the principal.
	taskID := uniqueID("go-auth")
	created, err := client.CreateTask(ctx, &pb.CreateTaskRequest{TaskId: taskID})
	if err != nil {
		t.Fatalf("CreateTask with the token: %v", err)
	}
	if created.GetTask().GetNamespace() != securedNamespace || created.GetEvent().GetNamespace() != securedNamespace {
		t.Fatalf("namespace of task %q / event %q, want %q",
			created.GetTask().GetNamespace(), created.GetEvent().GetNamespace(), securedNamespace)
	}
	if created.GetEvent().GetOperator() != securedPrincipal {
		t.Fatalf("operator %q, want the principal %q", created.GetEvent().GetOperator(), securedPrincipal)
	}

	// The watch carries the token too, and sees the transition made on someone's behalf. It
	// starts after the creation's cursor: a watch "from now" may still deliver the creation
	// when an older transaction was running as it began (the stream's horizon).
	watcher, err := client.Watch(ctx, &pb.WatchTaskEventsRequest{
		TaskIds: []string{taskID}, Namespaces: []string{securedNamespace},
		Start: &pb.WatchTaskEventsRequest_AfterCursor{AfterCursor: created.GetEvent().GetCursor()},
	})
	if err != nil {
		t.Fatalf("Watch with the token: %v", err)
	}
	defer watcher.Close()
	enqueued, err := client.EnqueueTask(ctx, &pb.EnqueueTaskRequest{TaskId: taskID, OnBehalfOf: "go-user@example.com"})
	if err != nil {
		t.Fatalf("EnqueueTask on behalf of someone: %v", err)
	}
	if e := enqueued.GetEvent(); e.GetOnBehalfOf() != "go-user@example.com" || e.GetOperator() != securedPrincipal {
		t.Fatalf("enqueue event operator %q on behalf of %q", e.GetOperator(), e.GetOnBehalfOf())
	}
	event, err := watcher.Next()
	if err != nil {
		t.Fatalf("the watch: %v", err)
	}
	if event.GetVersion() != 2 || event.GetOnBehalfOf() != "go-user@example.com" || event.GetOperator() != securedPrincipal ||
		event.GetNamespace() != securedNamespace {
		t.Fatalf("watched event %v", event)
	}

	t.Run("without a token every call is CREDENTIALS_MISSING, watches included", func(t *testing.T) {
		anonymous := connectTo(t, address)
		_, err := anonymous.GetTask(ctx, &pb.GetTaskRequest{TaskId: taskID})
		requireUnauthenticated(t, err, tasklife.ReasonCredentialsMissing)
		_, err = anonymous.Watch(ctx, &pb.WatchTaskEventsRequest{TaskIds: []string{taskID}})
		requireUnauthenticated(t, err, tasklife.ReasonCredentialsMissing)
	})

	t.Run("a wrong token is CREDENTIALS_INVALID", func(t *testing.T) {
		impostor := connectTo(t, address, tasklife.WithInsecureBearerToken("not-the-token-0123456789"))
		_, err := impostor.GetTask(ctx, &pb.GetTaskRequest{TaskId: taskID})
		requireUnauthenticated(t, err, tasklife.ReasonCredentialsInvalid)
	})

	t.Run("naming another operator is OPERATOR_MISMATCH and writes nothing", func(t *testing.T) {
		_, err := client.CreateTask(ctx, &pb.CreateTaskRequest{TaskId: uniqueID("go-auth-mismatch"), Operator: "someone-else"})
		requireOperatorMismatch(t, err)

		// The tasklife-operator metadata of WithOperator is checked the same way.
		pretender := connectTo(t, address, tasklife.WithInsecureBearerToken(token), tasklife.WithOperator("someone-else"))
		_, err = pretender.StartTask(ctx, &pb.StartTaskRequest{TaskId: taskID})
		requireOperatorMismatch(t, err)
		current, err := client.GetTask(ctx, &pb.GetTaskRequest{TaskId: taskID})
		if err != nil || current.GetTask().GetVersion() != 2 {
			t.Fatalf("the refused StartTask wrote something: %v, %v", current, err)
		}
	})
}

func requireUnauthenticated(t *testing.T, err error, reason string) {
	t.Helper()
	var unauthenticated *tasklife.UnauthenticatedError
	if !errors.As(err, &unauthenticated) || unauthenticated.Reason != reason || status.Code(err) != codes.Unauthenticated {
		t.Fatalf("want UNAUTHENTICATED / %s as *UnauthenticatedError, got %T: %v", reason, err, err)
	}
}

func requireOperatorMismatch(t *testing.T, err error) {
	t.Helper()
	var denied *tasklife.PermissionDeniedError
	if !errors.As(err, &denied) || denied.Reason != tasklife.ReasonOperatorMismatch || status.Code(err) != codes.PermissionDenied {
		t.Fatalf("want PERMISSION_DENIED / OPERATOR_MISMATCH as *PermissionDeniedError, got %T: %v", err, err)
	}
	if denied.Principal != securedPrincipal || denied.Metadata["operator"] != "someone-else" {
		t.Fatalf("principal %q, metadata %v", denied.Principal, denied.Metadata)
	}
}

func TestABearerTokenIsNeverSentOverPlaintextUnlessAskedFor(t *testing.T) {
	_, err := tasklife.Connect("127.0.0.1:1", tasklife.WithBearerToken("a-token-0123456789"))
	if !errors.Is(err, tasklife.ErrBearerTokenNeedsTLS) {
		t.Fatalf("want ErrBearerTokenNeedsTLS, got %v", err)
	}
	for _, opts := range [][]tasklife.Option{
		{tasklife.WithBearerToken("a-token-0123456789"), tasklife.WithTLS(nil)},
		{tasklife.WithInsecureBearerToken("a-token-0123456789")},
	} {
		client, err := tasklife.Connect("127.0.0.1:1", opts...)
		if err != nil {
			t.Fatalf("Connect: %v", err)
		}
		_ = client.Close()
	}
}

func TestAnUnusableBearerTokenIsRefusedByConnect(t *testing.T) {
	for _, token := range []string{"", "two words", "line\nbreak", "naïve"} {
		if _, err := tasklife.Connect("127.0.0.1:1", tasklife.WithInsecureBearerToken(token)); err == nil {
			t.Errorf("Connect accepted the token %q", token)
		}
	}
}

// The authentication and authorization statuses, as the server's errors.md lists them.
func TestAuthenticationAndAuthorizationFailuresHaveTheirOwnTypes(t *testing.T) {
	err := tasklife.DecodeError(statusError(t, codes.Unauthenticated, "who are you", errorInfo("CREDENTIALS_INVALID", nil)))
	var unauthenticated *tasklife.UnauthenticatedError
	if !errors.As(err, &unauthenticated) || unauthenticated.Reason != tasklife.ReasonCredentialsInvalid || unauthenticated.Metadata == nil {
		t.Fatalf("decoded %#v", err)
	}

	err = tasklife.DecodeError(statusError(t, codes.PermissionDenied, "not yours",
		errorInfo("ROLE_NOT_GRANTED", map[string]string{"principal": "etl", "method": "KillTask", "granting_roles": "operator,admin"})))
	var denied *tasklife.PermissionDeniedError
	if !errors.As(err, &denied) || denied.Reason != tasklife.ReasonRoleNotGranted || denied.Principal != "etl" ||
		denied.Metadata["granting_roles"] != "operator,admin" {
		t.Fatalf("decoded %#v", err)
	}

	err = tasklife.DecodeError(statusError(t, codes.ResourceExhausted, "too many",
		errorInfo("TOO_MANY_STREAMS", map[string]string{"principal": "etl", "limit": "100"}),
		&errdetails.QuotaFailure{Violations: []*errdetails.QuotaFailure_Violation{{Subject: "principals/etl"}}}))
	var exhausted *tasklife.ResourceExhaustedError
	if !errors.As(err, &exhausted) || exhausted.Reason != tasklife.ReasonTooManyStreams || exhausted.Principal != "etl" || exhausted.Limit != 100 {
		t.Fatalf("decoded %#v", err)
	}
	var base *tasklife.Error
	if !errors.As(err, &base) || len(base.Details) != 2 || status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("the generic view is missing or incomplete: %+v", base)
	}

	// gRPC's own limits and a proxy's refusals carry no ErrorInfo: the type, without a reason.
	err = tasklife.DecodeError(status.Error(codes.ResourceExhausted, "message larger than max"))
	if !errors.As(err, &exhausted) || exhausted.Reason != "" || exhausted.Limit != 0 {
		t.Fatalf("decoded %#v", err)
	}
	err = tasklife.DecodeError(status.Error(codes.Unauthenticated, "proxy: no"))
	if !errors.As(err, &unauthenticated) || unauthenticated.Reason != "" {
		t.Fatalf("decoded %#v", err)
	}
}

// The TLS options meet real handshakes: a TLS-terminating proxy (proxy_test.go) with
// certificates of a CA made for the test, in front of the live server.

func TestABearerTokenTravelsOverTLS(t *testing.T) {
	address, token := securedServer(t)
	pki := newTestPKI(t, "tasklife.test")
	proxy := startProxy(t, address, pki.serverTLS(nil))
	client := connectTo(t, proxy.address(), tasklife.WithBearerToken(token),
		tasklife.WithTLSCAFile(pki.caFile), tasklife.WithTLSServerName("tasklife.test"))

	created, err := client.CreateTask(withTimeout(t, 10*time.Second), &pb.CreateTaskRequest{TaskId: uniqueID("go-auth-tls")})
	if err != nil || created.GetEvent().GetOperator() != securedPrincipal {
		t.Fatalf("CreateTask over TLS with the token: %v, %v", created, err)
	}
}

func TestTheServerNameOverrideIsWhatTheCertificateIsCheckedAgainst(t *testing.T) {
	pki := newTestPKI(t, "tasklife.test")
	proxy := startProxy(t, liveAddress(t), pki.serverTLS(nil))
	ctx := withTimeout(t, 10*time.Second)

	// The certificate names tasklife.test, not 127.0.0.1: without the override it is refused.
	plain := connectTo(t, proxy.address(), tasklife.WithTLSCAPEM(pki.caPEM))
	_, err := plain.GetStateMachine(ctx, &pb.GetStateMachineRequest{})
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("want UNAVAILABLE (certificate not valid for 127.0.0.1), got %v", err)
	}
	named := connectTo(t, proxy.address(), tasklife.WithTLSCAPEM(pki.caPEM), tasklife.WithTLSServerName("tasklife.test"))
	if _, err := named.GetStateMachine(ctx, &pb.GetStateMachineRequest{}); err != nil {
		t.Fatalf("with the server name override: %v", err)
	}
}

func TestMutualTLSPresentsTheClientCertificate(t *testing.T) {
	pki := newTestPKI(t, "tasklife.test")
	clientCerts := x509.NewCertPool()
	clientCerts.AddCert(pki.ca)
	proxy := startProxy(t, liveAddress(t), pki.serverTLS(clientCerts))
	ctx := withTimeout(t, 10*time.Second)
	trust := []tasklife.Option{tasklife.WithTLSCAFile(pki.caFile), tasklife.WithTLSServerName("tasklife.test")}

	without := connectTo(t, proxy.address(), trust...)
	if _, err := without.GetStateMachine(ctx, &pb.GetStateMachineRequest{}); status.Code(err) != codes.Unavailable {
		t.Fatalf("want UNAVAILABLE without a client certificate, got %v", err)
	}
	with := connectTo(t, proxy.address(), append(trust, tasklife.WithTLSClientCertificate(pki.clientCertFile, pki.clientKeyFile))...)
	if _, err := with.GetStateMachine(ctx, &pb.GetStateMachineRequest{}); err != nil {
		t.Fatalf("with the client certificate: %v", err)
	}
}

func TestConnectFailsOnAnUnusableClientCertificateOrCAPEM(t *testing.T) {
	pki := newTestPKI(t, "tasklife.test")
	for name, opt := range map[string]tasklife.Option{
		"missing certificate":  tasklife.WithTLSClientCertificate(filepath.Join(t.TempDir(), "none.pem"), pki.clientKeyFile),
		"key of another cert":  tasklife.WithTLSClientCertificate(pki.clientCertFile, pki.otherKeyFile),
		"CA PEM without a PEM": tasklife.WithTLSCAPEM([]byte("not a certificate")),
	} {
		if _, err := tasklife.Connect("127.0.0.1:1", opt); err == nil {
			t.Errorf("%s: Connect succeeded", name)
		}
	}
}

// testPKI is a CA, a server certificate for one DNS name only, and a client certificate.
type testPKI struct {
	ca                            *x509.Certificate
	caPEM                         []byte
	caFile                        string
	server                        tls.Certificate
	clientCertFile, clientKeyFile string
	otherKeyFile                  string // a key that matches no certificate
}

func newTestPKI(t *testing.T, serverName string) *testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey := mustKey(t)
	caTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tasklife auth test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	leaf := func(serial int64, cn string, usage x509.ExtKeyUsage, dns []string) ([]byte, []byte) {
		key := mustKey(t)
		der, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn}, DNSNames: dns,
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		}, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	}
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p := &testPKI{ca: ca, caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})}
	p.caFile = write("ca.pem", p.caPEM)
	serverCert, serverKey := leaf(2, serverName, x509.ExtKeyUsageServerAuth, []string{serverName})
	if p.server, err = tls.X509KeyPair(serverCert, serverKey); err != nil {
		t.Fatal(err)
	}
	clientCert, clientKey := leaf(3, "go-client", x509.ExtKeyUsageClientAuth, nil)
	p.clientCertFile, p.clientKeyFile = write("client.pem", clientCert), write("client.key", clientKey)
	_, otherKey := leaf(4, "other", x509.ExtKeyUsageClientAuth, nil)
	p.otherKeyFile = write("other.key", otherKey)
	return p
}

// serverTLS is the proxy's TLS config; with clientCAs set it requires a client certificate they signed.
func (p *testPKI) serverTLS(clientCAs *x509.CertPool) *tls.Config {
	cfg := &tls.Config{Certificates: []tls.Certificate{p.server}, NextProtos: []string{"h2"}, MinVersion: tls.VersionTLS12}
	if clientCAs != nil {
		cfg.ClientAuth, cfg.ClientCAs = tls.RequireAndVerifyClientCert, clientCAs
	}
	return cfg
}
