package tasklife_test

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
)

// tcpProxy forwards connections from a loopback port to the live server. A test can cut
// every open connection at once, as a restarting load balancer or a failing network
// would, and can put TLS in front of the plaintext server. It is not a fake server:
// every byte still comes from the real one.
type tcpProxy struct {
	listener net.Listener
	target   string

	mu    sync.Mutex
	conns []net.Conn
}

// startProxy forwards to target; with serverTLS set it terminates TLS first.
func startProxy(t *testing.T, target string, serverTLS *tls.Config) *tcpProxy {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy listen: %v", err)
	}
	if serverTLS != nil {
		listener = tls.NewListener(listener, serverTLS)
	}
	p := &tcpProxy{listener: listener, target: target}
	go p.serve()
	t.Cleanup(func() {
		_ = listener.Close()
		p.cutConnections()
	})
	return p
}

func (p *tcpProxy) address() string { return p.listener.Addr().String() }

func (p *tcpProxy) serve() {
	for {
		client, err := p.listener.Accept()
		if err != nil {
			return // closed at cleanup
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, client, server)
		p.mu.Unlock()
		go pipe(server, client)
		go pipe(client, server)
	}
}

func pipe(to, from net.Conn) {
	_, err := io.Copy(to, from)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		_ = from.Close()
	}
	_ = to.Close()
}

// cutConnections closes every connection made so far; new ones are still accepted.
func (p *tcpProxy) cutConnections() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, conn := range p.conns {
		_ = conn.Close()
	}
	p.conns = nil
}
