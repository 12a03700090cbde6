package tasklife_test

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
)

// liveAddress is the host:port of the Tasklife server the live tests talk to. Without it
// they skip, so `go test ./...` passes offline; the pytest bridge always sets it.
func liveAddress(t testing.TB) string {
	t.Helper()
	address := os.Getenv("TASKLIFE_ADDRESS")
	if address == "" {
		t.Skip("TASKLIFE_ADDRESS is not set: no live Tasklife server to test against")
	}
	return address
}

// connect returns a plaintext client of the live server, closed when the test ends.
func connect(t testing.TB, opts ...tasklife.Option) *tasklife.Client {
	t.Helper()
	opts = append([]tasklife.Option{tasklife.WithDefaultTimeout(10 * time.Second)}, opts...)
	client, err := tasklife.Connect(liveAddress(t), opts...)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client
}

// uniqueID is a task id (or id prefix) no earlier run against the same server has used.
func uniqueID(prefix string) string {
	random := make([]byte, 6)
	_, _ = rand.Read(random)
	return prefix + "-" + time.Now().UTC().Format("20060102t150405") + "-" + hex.EncodeToString(random)
}
