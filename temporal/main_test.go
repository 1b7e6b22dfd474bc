package temporal

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.uber.org/goleak"
)

// workerEnv, when set to a server's host:port, makes the test binary a worker process of
// the kill test instead of running tests (see workerMain).
const workerEnv = "TOOLCALL_TEMPORAL_TEST_WORKER"

// devServer is the host:port of the dev server TestMain started; empty when none runs, and
// skip says why.
var devServer, skipReason string

func TestMain(m *testing.M) {
	if addr := os.Getenv(workerEnv); addr != "" {
		os.Exit(workerMain(addr))
	}
	stop, err := startDevServer()
	if err != nil {
		skipReason = err.Error()
	}
	code := 0
	func() {
		defer stop()
		code = m.Run()
	}()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// needServer returns a client of the dev server, or skips (fails under CI=true) when none runs.
func needServer(t *testing.T) client.Client {
	t.Helper()
	if devServer == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no Temporal dev server: %s", skipReason)
		}
		t.Skipf("no Temporal dev server (%s): go install github.com/temporalio/cli/cmd/temporal@v1.5.1", skipReason)
	}
	c, err := client.Dial(client.Options{HostPort: devServer, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// temporalBinary finds the temporal CLI on PATH or in GOPATH/bin.
func temporalBinary() (string, error) {
	if p, err := exec.LookPath("temporal"); err == nil {
		return p, nil
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "temporal")
		if _, err = os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("the temporal CLI is neither on PATH nor in GOPATH/bin")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startDevServer starts `temporal server start-dev` on 127.0.0.1 with a database in a
// temporary directory, waits until it serves, and sets devServer. stop ends it and removes
// the directory.
func startDevServer() (stop func(), err error) {
	stop = func() {}
	bin, err := temporalBinary()
	if err != nil {
		return stop, err
	}
	var ports [3]int
	for i := range ports {
		if ports[i], err = freePort(); err != nil {
			return stop, err
		}
	}
	dir, err := os.MkdirTemp("", "toolcall-temporal-")
	if err != nil {
		return stop, err
	}
	cmd := exec.Command(bin, "server", "start-dev", "--ip", "127.0.0.1", "--port", fmt.Sprint(ports[0]),
		"--http-port", fmt.Sprint(ports[1]), "--metrics-port", fmt.Sprint(ports[2]), "--headless",
		"--db-filename", filepath.Join(dir, "temporal.db"), "--log-level", "error")
	logFile, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		os.RemoveAll(dir)
		return stop, err
	}
	defer logFile.Close() // the child holds its own descriptor
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = dieWithParent()
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return stop, err
	}
	stop = func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		os.RemoveAll(dir)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", ports[0])
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		c, err := client.DialContext(ctx, client.Options{HostPort: addr, Logger: quietLogger()})
		if err == nil {
			_, err = c.CheckHealth(ctx, nil)
			c.Close()
		}
		if err == nil {
			devServer = addr
			return stop, nil
		}
		select {
		case <-ctx.Done():
			b, _ := os.ReadFile(logFile.Name())
			stop()
			return func() {}, fmt.Errorf("the dev server did not start: %w; its log:\n%s", err, b)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
