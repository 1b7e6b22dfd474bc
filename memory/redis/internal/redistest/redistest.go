// Package redistest starts real redis-server processes for the tests of package
// memory/redis: one per test binary (Main, from TestMain), shared by its tests through
// Client, each test on a key prefix of its own; and servers of a test's own (Start) for the
// tests that restart or configure one.
//
// When redis-server is not installed, Main prints one message saying how to run the tests
// and runs none; under CI (the environment variable CI set) it fails instead. After the
// tests, Main fails the binary if they left goroutines running (goleak).
package redistest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// Server is a redis-server process on 127.0.0.1.
type Server struct {
	Addr string
	dir  string
	args []string
	cmd  *exec.Cmd
	exit chan struct{}
}

// shared is the server of the test binary, started by Main.
var shared *Server

// Main starts the test binary's server, runs the tests and stops the server, also when
// tests fail, and returns the exit code for os.Exit.
func Main(m *testing.M) int {
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") != "" {
			fmt.Fprintln(os.Stderr, "FAIL: redis-server is not installed, and CI is set: the Redis store's tests must run under CI (apt-get install redis-server)")
			return 1
		}
		fmt.Fprintln(os.Stderr, "memory/redis: tests skipped: redis-server is not installed (apt-get install redis-server; the tests start their own server)")
		return 0
	}
	dir, err := os.MkdirTemp("", "redistest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	shared, err = start(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "redistest:", err)
		return 1
	}
	defer shared.stop()
	running := goleak.IgnoreCurrent() // the server's waiter
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(running); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: goroutines leaked by the tests:", err)
			code = 1
		}
	}
	return code
}

// Start starts a server of the test's own, with the extra redis-server arguments (say
// "--appendonly", "yes"), stopped when the test ends.
func Start(t testing.TB, extra ...string) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed (apt-get install redis-server; the tests start their own server)")
	}
	s, err := start(t.TempDir(), extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	return s
}

// Shared returns the test binary's server.
func Shared(t testing.TB) *Server {
	t.Helper()
	if shared == nil {
		t.Fatal("redistest: no server: call redistest.Main from TestMain")
	}
	return shared
}

// Client returns a client of the test binary's server, closed when the test ends, and a key
// prefix of the test's own.
func Client(t testing.TB, opts *goredis.Options) (*goredis.Client, string) {
	t.Helper()
	return Shared(t).Client(t, opts), Prefix()
}

// Prefix returns a new key prefix, unique to the caller.
func Prefix() string { return "t:" + rand.Text()[:10] + ":" }

// Client returns a client of s, closed when the test ends. opts may be nil; its Addr is
// set to s's.
func (s *Server) Client(t testing.TB, opts *goredis.Options) *goredis.Client {
	t.Helper()
	var o goredis.Options
	if opts != nil {
		o = *opts
	}
	o.Addr = s.Addr
	c := goredis.NewClient(&o)
	t.Cleanup(func() { c.Close() })
	return c
}

func start(dir string, extra ...string) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--logfile", filepath.Join(dir, "redis.log")}, extra...)
	s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), dir: dir, args: args}
	return s, s.launch()
}

func (s *Server) launch() error {
	cmd := exec.Command("redis-server", s.args...)
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting redis-server: %w", err)
	}
	s.cmd, s.exit = cmd, make(chan struct{})
	go func() { cmd.Wait(); close(s.exit) }()
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.exit:
			log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			return fmt.Errorf("redis-server exited at start: %s", log)
		default:
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("redis-server on %s does not answer PING: %w", s.Addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Restart stops the server (SHUTDOWN NOSAVE: what it has not written to its append-only
// file is gone) and starts it again on the same port and directory.
func (s *Server) Restart() error {
	s.stop()
	return s.launch()
}

// Crash kills the server (SIGKILL) and starts it again on the same port and directory: it
// keeps what it had written to its append-only file.
func (s *Server) Crash() error {
	s.kill()
	return s.launch()
}

// Stop stops the server; Start starts it again.
func (s *Server) Stop() { s.stop() }

// Start starts a stopped server again.
func (s *Server) Start() error { return s.launch() }

func (s *Server) stop() {
	select {
	case <-s.exit:
		return
	default:
	}
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr, MaxRetries: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	err := c.ShutdownNoSave(ctx).Err()
	cancel()
	c.Close()
	select {
	case <-s.exit:
	case <-time.After(5 * time.Second):
		if err == nil {
			err = errors.New("still running")
		}
		fmt.Fprintf(os.Stderr, "redistest: SHUTDOWN NOSAVE of %s: %v; killing it\n", s.Addr, err)
		s.kill()
	}
}

func (s *Server) kill() {
	s.cmd.Process.Kill()
	<-s.exit
}
