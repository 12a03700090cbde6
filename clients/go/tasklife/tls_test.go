package tasklife_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// The server speaks plaintext, so these tests put a TLS-terminating proxy in front of
// it, with a certificate from a CA made for the test.

func TestWithTLSCAFileTrustsThatAuthority(t *testing.T) {
	caFile, serverTLS := testCertificateAuthority(t)
	proxy := startProxy(t, liveAddress(t), serverTLS)
	client, err := tasklife.Connect(proxy.address(), tasklife.WithTLSCAFile(caFile))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	_, err = client.GetTask(withTimeout(t, 10*time.Second), &pb.GetTaskRequest{TaskId: uniqueID("over-tls")})
	var notFound *tasklife.NotFoundError
	if !errors.As(err, &notFound) {
		t.Fatalf("want the server's NOT_FOUND through TLS, got %v", err)
	}
}

func TestTLSWithoutTheCAFileRefusesTheUnknownAuthority(t *testing.T) {
	_, serverTLS := testCertificateAuthority(t)
	proxy := startProxy(t, liveAddress(t), serverTLS)
	client, err := tasklife.Connect(proxy.address(), tasklife.WithTLS(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	_, err = client.GetTask(withTimeout(t, 10*time.Second), &pb.GetTaskRequest{TaskId: "any"})
	var failure *tasklife.Error
	if !errors.As(err, &failure) || failure.Code != codes.Unavailable {
		t.Fatalf("want UNAVAILABLE (certificate signed by an unknown authority), got %v", err)
	}
}

func TestConnectFailsOnAnUnusableCAFile(t *testing.T) {
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{notPEM, filepath.Join(t.TempDir(), "missing.pem")} {
		if _, err := tasklife.Connect("127.0.0.1:1", tasklife.WithTLSCAFile(path)); err == nil {
			t.Errorf("Connect with CA file %s succeeded", path)
		}
	}
}

// testCertificateAuthority makes a CA, writes its certificate to a PEM file, and returns
// that path with a server TLS config whose certificate it signed for 127.0.0.1.
func testCertificateAuthority(t *testing.T) (caFile string, serverTLS *tls.Config) {
	t.Helper()
	caKey := mustKey(t)
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "tasklife test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)

	serverKey := mustKey(t)
	serverDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, ca, &serverKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}

	caFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return caFile, &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{serverDER}, PrivateKey: serverKey}},
		NextProtos:   []string{"h2"}, // gRPC requires HTTP/2 to be negotiated
		MinVersion:   tls.VersionTLS12,
	}
}

func mustKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}
