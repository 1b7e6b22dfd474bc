package aimock

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Version is the version of @copilotkit/aimock the tests are written against; testdata's
// package.json pins it exactly.
const Version = "1.43.0"

// pkgDir is where npm ci --prefix testdata installs the package, from the module root.
const pkgDir = "testdata/node_modules/@copilotkit/aimock"

// startTimeout bounds the wait for the server to report its port. Node starts it in well
// under a second; a loaded CI machine gets a wide margin.
const startTimeout = 30 * time.Second

// stopTimeout is how long the server may take to exit after SIGTERM before it is killed.
const stopTimeout = 5 * time.Second

// Server is a running aimock server.
type Server struct {
	// URL is the base URL of the OpenAI-compatible API, ending in /v1: what
	// openai.ClientConfig.BaseURL takes.
	URL string
	// Origin is the server's scheme, host and port (http://127.0.0.1:PORT), for aimock's own
	// endpoints such as /__aimock/journal.
	Origin string

	cmd  *exec.Cmd
	log  *output
	done chan struct{} // closed when the process has exited and its output is drained
}

// Start runs aimock on 127.0.0.1 with the fixtures of the JSON file (or directory) at path,
// relative to the test's working directory, and returns once the server listens. The server
// is stopped, with its whole process group, by t.Cleanup; its output is logged when the test
// failed.
//
// When node or the installed package is missing (or is not Version), Start skips the test,
// or fails it when the environment variable CI is not empty.
func Start(t testing.TB, fixtures string) *Server {
	t.Helper()
	node, cli, err := locate()
	if err != nil {
		unavailable(t, err)
	}
	abs, err := filepath.Abs(fixtures)
	if err != nil {
		t.Fatalf("aimock: fixtures %q: %v", fixtures, err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("aimock: fixtures: %v", err)
	}
	s, err := start(node, cli, abs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("aimock output:\n%s", s.log.String())
		}
	})
	return s
}

// unavailable skips t because the server cannot run, or fails it in CI (CI set), where the
// wire tests must never be skipped silently.
func unavailable(t testing.TB, err error) {
	t.Helper()
	msg := fmt.Sprintf("aimock: %v; run npm ci --prefix testdata (at the module root) to install @copilotkit/aimock %s", err, Version)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// locate finds node and the CLI script of the installed package.
func locate() (node, cli string, err error) {
	node, err = exec.LookPath("node")
	if err != nil {
		return "", "", errors.New("node not found in PATH")
	}
	root, err := moduleRoot()
	if err != nil {
		return "", "", err
	}
	dir := filepath.Join(root, filepath.FromSlash(pkgDir))
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", "", fmt.Errorf("@copilotkit/aimock is not installed in %s", filepath.Dir(filepath.Dir(dir)))
	}
	var pkg struct {
		Version string            `json:"version"`
		Bin     map[string]string `json:"bin"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", "", fmt.Errorf("reading %s/package.json: %v", dir, err)
	}
	if pkg.Version != Version {
		return "", "", fmt.Errorf("@copilotkit/aimock %s is installed, the tests need %s", pkg.Version, Version)
	}
	// The llmock bin is the flag-driven server (-p, -h, -f); the aimock bin only takes a
	// --config file.
	bin := pkg.Bin["llmock"]
	if bin == "" {
		return "", "", fmt.Errorf("%s/package.json has no llmock bin", dir)
	}
	return node, filepath.Join(dir, filepath.FromSlash(bin)), nil
}

// moduleRoot returns the nearest directory, from the working directory up, that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}

// listening is the line the CLI prints once the server is bound:
// "[aimock] aimock server listening on http://127.0.0.1:40123".
var listening = regexp.MustCompile(`listening on (http://127\.0\.0\.1:[0-9]+)\s*$`)

func start(node, cli, fixtures string) (*Server, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("aimock: %w", err)
	}
	// -p 0: the kernel picks a free port, so parallel tests and packages never collide.
	cmd := exec.Command(node, cli, "-p", "0", "-h", "127.0.0.1", "-f", fixtures, "--log-level", "info")
	cmd.Stdout, cmd.Stderr = w, w
	cmd.Env = environ()
	cmd.Dir = filepath.Dir(fixtures)
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("aimock: starting %s: %w", node, err)
	}
	w.Close() // the child holds its own copy; r reaches EOF when the child exits

	s := &Server{cmd: cmd, log: &output{}, done: make(chan struct{})}
	origin := make(chan string, 1)
	drained := make(chan struct{})
	go func() { // reads the output until the process exits, so it never blocks on a full pipe
		defer close(drained)
		defer r.Close()
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		found := false
		for sc.Scan() {
			line := sc.Text()
			s.log.add(line)
			if m := listening.FindStringSubmatch(line); m != nil && !found {
				found = true
				origin <- m[1]
			}
		}
	}()
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		<-drained
		exited <- err
		close(s.done)
	}()

	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case o := <-origin:
		s.Origin = o
		s.URL = o + "/v1"
		return s, nil
	case err := <-exited:
		return nil, fmt.Errorf("aimock: the server exited before listening (%v):\n%s", err, s.log.String())
	case <-timer.C:
		s.stop()
		return nil, fmt.Errorf("aimock: the server did not report its port within %v:\n%s", startTimeout, s.log.String())
	}
}

// environ is the test's environment without aimock's own variables (AIMOCK_API_KEYS would
// make it refuse our requests, AIMOCK_STRICT_TURN_INDEX change its matching): the server
// behaves the same on every machine.
func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AIMOCK_") {
			env = append(env, kv)
		}
	}
	return env
}

// stop ends the server's process group: SIGTERM, then SIGKILL if it lingers. It returns once
// the process has exited and its output is read.
func (s *Server) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	terminate(s.cmd)
	timer := time.NewTimer(stopTimeout)
	defer timer.Stop()
	select {
	case <-s.done:
	case <-timer.C:
		kill(s.cmd)
		<-s.done
	}
}

// maxOutput bounds the output kept for the failure log.
const maxOutput = 64 * 1024

// output keeps the tail of the server's output.
type output struct {
	mu sync.Mutex
	b  strings.Builder
}

func (o *output) add(line string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.b.Len()+len(line) > maxOutput {
		rest := o.b.String()
		rest = rest[min(len(rest), len(line)+maxOutput/2):]
		o.b.Reset()
		o.b.WriteString("…\n")
		o.b.WriteString(rest)
	}
	o.b.WriteString(line)
	o.b.WriteByte('\n')
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}
