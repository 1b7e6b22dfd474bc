// Package pgtest runs the tests of memory/postgres against a real PostgreSQL server that it
// starts itself: one server per test binary (Main, from TestMain), on a free port of
// 127.0.0.1, in a temporary directory removed at the end; every test gets a database of its
// own (Database).
//
// When TOOLCALL_PG_URL is set, the tests use that server instead (a superuser's URL: each
// test creates its database there) and Restart is not available.
//
// The binaries are looked for in PGTEST_BIN when it is set, else in PATH and in Debian's
// /usr/lib/postgresql/<version>/bin.
//
// When PostgreSQL's binaries are missing (or the process is not root and cannot run them),
// the tests skip with one message saying how to run them; under CI (CI set) they fail.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// How is the message of a skipped test: how to run these tests.
const How = "PostgreSQL not available: install postgresql-15 (Debian: apt-get install postgresql-15); the tests start their own server. Or set TOOLCALL_PG_URL to a superuser's URL of a running server."

// binDirs are where the binaries are looked for, after PATH.
var binDirs = []string{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin", "/usr/local/bin"}

// The server of this test binary.
var (
	baseURL   string // the URL of the server's postgres database; "" when unavailable
	dataDir   string // "" for a server we did not start
	pgCtl     string
	port      int
	asUser    string // "postgres" when we run the server through runuser
	unusable  string // why there is no server
	databases atomic.Int64
)

// Main starts the server, runs m's tests and stops the server, even when they fail. Call it
// from TestMain: os.Exit(pgtest.Main(m)) is not needed, Main exits.
func Main(m *testing.M) {
	code := run(m)
	os.Exit(code)
}

func run(m *testing.M) int {
	if u := os.Getenv("TOOLCALL_PG_URL"); u != "" {
		baseURL = u
		return m.Run()
	}
	if err := start(); err != nil {
		unusable = err.Error()
		fmt.Fprintf(os.Stderr, "pgtest: %s (%s)\n", How, unusable)
	} else {
		defer stop()
	}
	return m.Run()
}

// Available reports whether a server runs.
func Available() bool { return baseURL != "" }

// need skips t, or fails it under CI, when there is no server.
func need(t testing.TB) {
	t.Helper()
	if baseURL != "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("pgtest: under CI the PostgreSQL tests must run: %s (%s)", How, unusable)
	}
	t.Skip(How)
}

// Database creates a new, empty database for t and returns its connection string.
func Database(t testing.TB) string {
	t.Helper()
	need(t)
	name := fmt.Sprintf("t%d_%d", os.Getpid(), databases.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, baseURL)
	if err != nil {
		t.Fatalf("pgtest: connecting to %s: %v", baseURL, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// Restart restarts the server (pg_ctl restart -m fast): every connection is closed, what was
// committed stays. It skips t on a server pgtest did not start.
func Restart(t testing.TB) {
	t.Helper()
	need(t)
	if dataDir == "" {
		t.Skip("pgtest: Restart needs the server pgtest starts (TOOLCALL_PG_URL is set)")
	}
	if out, err := pgctl("restart", "-m", "fast"); err != nil {
		t.Fatalf("pgtest: pg_ctl restart: %v\n%s", err, out)
	}
}

func find(name string) string {
	if dir := os.Getenv("PGTEST_BIN"); dir != "" { // only there: another version, or none
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err != nil {
			return ""
		}
		return p
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, d := range binDirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

func start() error {
	initdb, ctl := find("initdb"), find("pg_ctl")
	if initdb == "" || ctl == "" {
		return errors.New("initdb or pg_ctl not found")
	}
	pgCtl = ctl
	dir, err := os.MkdirTemp("", "toolcall-pgtest-")
	if err != nil {
		return err
	}
	dataDir = filepath.Join(dir, "data")
	if os.Geteuid() == 0 { // initdb refuses root: the server runs as postgres
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			dataDir = ""
			return fmt.Errorf("running as root and there is no user postgres to run the server: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			dataDir = ""
			return err
		}
		if _, err := exec.LookPath("runuser"); err != nil {
			os.RemoveAll(dir)
			dataDir = ""
			return errors.New("running as root without runuser")
		}
		asUser = "postgres"
	}
	watch(dir)
	if out, err := command(initdb, "-D", dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		dataDir = ""
		return fmt.Errorf("initdb: %v: %s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		dataDir = ""
		return err
	}
	port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	if out, err := pgctl("start"); err != nil {
		os.RemoveAll(dir)
		dataDir = ""
		return fmt.Errorf("pg_ctl start: %v: %s", err, out)
	}
	baseURL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return nil
}

// watch starts a process of its own that stops the server and removes dir once this test
// binary is gone, however it ended: a panic in a test, or a SIGKILL, skips Main's cleanup.
func watch(dir string) {
	stopCmd := command(pgCtl, "-D", dataDir, "-w", "stop", "-m", "fast")
	script := fmt.Sprintf(`while kill -0 %d 2>/dev/null; do sleep 1; done; %s >/dev/null 2>&1; rm -rf %s`,
		os.Getpid(), shellJoin(stopCmd.Args), shellQuote(dir))
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // not in the test's process group
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest: watch:", err)
	} else {
		cmd.Process.Release() // it outlives us
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

func pgctl(action string, args ...string) ([]byte, error) {
	a := []string{"-D", dataDir, "-l", filepath.Join(filepath.Dir(dataDir), "log"), "-w", "-t", "60", action}
	if action != "stop" {
		a = append(a, "-o", fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=200", port, filepath.Dir(dataDir)))
	}
	return command(pgCtl, append(a, args...)...).CombinedOutput()
}

func command(name string, args ...string) *exec.Cmd {
	if asUser != "" {
		return exec.Command("runuser", append([]string{"-u", asUser, "--", name}, args...)...)
	}
	return exec.Command(name, args...)
}

func stop() {
	if out, err := pgctl("stop", "-m", "fast"); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: pg_ctl stop: %v\n%s", err, out)
	}
	os.RemoveAll(filepath.Dir(dataDir))
}

// Child reports whether this process is a child the tests started (ChildEnv), and which
// mode it runs in.
func Child() (mode string, ok bool) {
	mode = os.Getenv("PGTEST_CHILD")
	return mode, mode != ""
}

// ChildCommand returns the command of a child process: this test binary running only the
// test named run, in mode, against the database at url (through TOOLCALL_PG_URL, so the child
// starts no server).
func ChildCommand(ctx context.Context, run, mode, dbURL string, env ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+run+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PGTEST_CHILD="+mode, "TOOLCALL_PG_URL="+dbURL, "PGTEST_DB="+dbURL)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// ChildDatabase is, in a child, the URL of the database its parent gave it.
func ChildDatabase() string { return os.Getenv("PGTEST_DB") }

// Quote quotes s as a SQL string literal.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
