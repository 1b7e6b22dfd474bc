package npmtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"
)

// startTimeout bounds the wait for a server to listen: Node starts in well under a second,
// a loaded CI machine gets a wide margin.
const startTimeout = 30 * time.Second

// HTTPServer is an MCP server run by node that listens on 127.0.0.1 at the port of the
// environment variable PORT, as server-everything's streamableHttp mode does.
type HTTPServer struct {
	// URL is the server's MCP endpoint: http://127.0.0.1:PORT/mcp.
	URL string

	node string
	args []string
	port int

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has been waited for
	out    *bytes.Buffer
}

// StartHTTP runs node with args (a script and its arguments) with PORT set to a free port,
// and returns once the port accepts connections. The process, in a process group of its
// own, is killed with its group by t.Cleanup (and by the kernel if the test binary dies
// first, on Linux); its output is logged when the test failed.
func StartHTTP(t testing.TB, node string, args ...string) *HTTPServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &HTTPServer{URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), node: node, args: args, port: port}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			s.mu.Lock()
			t.Logf("%s output:\n%s", args[0], s.out)
			s.mu.Unlock()
		}
	})
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	return s
}

// Restart kills the server and starts it again on the same port: a new process that
// knows none of the old sessions.
func (s *HTTPServer) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
}

// Stop kills the server's process group and waits for the process.
func (s *HTTPServer) Stop() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.cmd = nil
	s.mu.Unlock()
	if cmd != nil {
		killGroup(cmd)
		<-exited
	}
}

func (s *HTTPServer) start() error {
	cmd := exec.Command(s.node, s.args...)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(s.port))
	out := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = &lockedWriter{mu: &s.mu, w: out}, &lockedWriter{mu: &s.mu, w: out}
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("npmtest: starting %s: %w", s.node, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	s.mu.Lock()
	s.cmd, s.exited, s.out = cmd, exited, out
	s.mu.Unlock()
	deadline := time.Now().Add(startTimeout)
	addr := fmt.Sprintf("127.0.0.1:%d", s.port)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("npmtest: %s exited before listening on %s", s.args[0], addr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	return fmt.Errorf("npmtest: %s did not listen on %s within %s", s.args[0], addr, startTimeout)
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}
