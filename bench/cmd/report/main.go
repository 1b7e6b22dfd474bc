// Command report runs the benchmarks of the bench and bench/adk modules and writes
// BENCHMARKS.md from their results: run it in bench/,
//
//	go run ./cmd/report -count 10
//
// It runs BenchmarkRatio and BenchmarkRatioHTTP -count times (the interleaved ratios to the
// hand-written floor), BenchmarkSleep once (wall time of timers, not load-sensitive), and
// TestBehaviour, in both modules, and the prompt-cache workload (bench.CacheWays: -cache
// redoes only its section of the page, in place, in seconds); it prints the benchmarks'
// output to stderr as they run and keeps it in a file outside the repository (-raw).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

func main() {
	count := flag.Int("count", 3, "runs of each ratio benchmark; each cell is their median")
	benchtime := flag.String("benchtime", "1s", "go test -benchtime of the ratio benchmarks")
	out := flag.String("out", "../BENCHMARKS.md", "the page to write")
	raw := flag.String("raw", filepath.Join(os.TempDir(), "bench-report.txt"), "where to keep the benchmarks' output")
	cache := flag.Bool("cache", false, "only redo the prompt-cache section of the page, in place (seconds)")
	flag.Parse()
	if *cache {
		if err := cacheOnly(*out); err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(1)
		}
		return
	}
	if err := report(*count, *benchtime, *out, *raw); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func report(count int, benchtime, out, raw string) error {
	if _, err := os.Stat("adk/go.mod"); err != nil {
		return fmt.Errorf("run me in bench/: %w", err)
	}
	rawFile, err := os.Create(raw)
	if err != nil {
		return err
	}
	defer rawFile.Close()
	m := newMachine(count)
	var output bytes.Buffer
	log := io.MultiWriter(&output, rawFile, os.Stderr)
	ratios := []string{"test", "-run", "^$", "-bench", "^BenchmarkRatio(HTTP)?$", "-count", fmt.Sprint(count), "-benchtime", benchtime, "-timeout", "3h", "."}
	sleep := []string{"test", "-run", "^$", "-bench", "^BenchmarkSleep$", "-count", "1", "-timeout", "1h", "."}
	for _, dir := range []string{".", "adk"} {
		for _, args := range [][]string{ratios, sleep} {
			if err := goCommand(dir, log, args...); err != nil {
				return err
			}
		}
	}
	mcpCall := []string{"test", "-run", "^$", "-bench", "^BenchmarkCall$", "-count", fmt.Sprint(count), "-benchtime", benchtime, "-timeout", "1h", "."}
	if err := goCommand("../mcp", log, mcpCall...); err != nil {
		return err
	}
	stores := storeBenchmarks(count, benchtime, log)
	cache := cacheRows()
	var behaviour bytes.Buffer
	for _, dir := range []string{".", "adk"} {
		if err := goCommand(dir, io.MultiWriter(&behaviour, rawFile), "test", "-count", "1", "-run", "^TestBehaviour$", "-v", "."); err != nil {
			return err
		}
	}
	m.finish()
	res := parse(output.String())
	if len(res.runs) == 0 {
		return fmt.Errorf("no benchmark results in the output (kept in %s)", raw)
	}
	m.cpu = res.cpu
	page := render(res, m, versions(), behaviourRows(behaviour.String()), stores, cache)
	if err := os.WriteFile(out, []byte(page), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "report: wrote %s (%d lines) in %v; the benchmarks' output is in %s\n", out, strings.Count(page, "\n"), m.took.Round(time.Second), raw)
	return nil
}

// goCommand runs the go command in dir, its output to w.
func goCommand(dir string, w io.Writer, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = w, w
	fmt.Fprintf(os.Stderr, "report: (cd %s && go %s)\n", dir, strings.Join(args, " "))
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("(cd %s && go %s): %w", dir, strings.Join(args, " "), err)
	}
	return nil
}

// machine is what the page says of where and when it was measured.
type machine struct {
	count                int
	start                time.Time
	took                 time.Duration
	cpu, goVersion       string
	cores                int
	memGiB               float64
	loadStart, loadEnd   string
	commit, commitStatus string
}

func newMachine(count int) *machine {
	m := &machine{count: count, start: time.Now().UTC(), cores: runtime.NumCPU(), loadStart: loadAverage()}
	m.goVersion = strings.TrimSpace(output("go", "env", "GOVERSION"))
	m.commit = strings.TrimSpace(output("git", "rev-parse", "--short", "HEAD"))
	if strings.TrimSpace(output("git", "status", "--porcelain", "--", ".")) != "" {
		m.commitStatus = " with uncommitted changes in bench/"
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb float64
		if _, err := fmt.Sscanf(strings.TrimPrefix(string(b), "MemTotal:"), "%f", &kb); err == nil {
			m.memGiB = kb / (1 << 20)
		}
	}
	return m
}

func (m *machine) finish() {
	m.took = time.Since(m.start)
	m.loadEnd = loadAverage()
}

// loadAverage is the 1-minute load average, or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

func output(name string, args ...string) string {
	b, err := exec.Command(name, args...).Output()
	if err != nil {
		return "?"
	}
	return string(b)
}

// versions are the peers' module versions, by path.
func versions() map[string]string {
	v := map[string]string{}
	add := func(dir string, paths ...string) {
		cmd := exec.Command("go", append([]string{"list", "-m", "-f", "{{.Path}} {{.Version}}"}, paths...)...)
		cmd.Dir = dir
		b, _ := cmd.Output()
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 2 {
				v[f[0]] = f[1]
			}
		}
	}
	add(".", "charm.land/fantasy", "github.com/nlpodyssey/openai-agents-go", "github.com/cloudwego/eino",
		"github.com/cloudwego/eino-ext/components/model/openai", "github.com/sashabaranov/go-openai")
	add("adk", "google.golang.org/adk/v2")
	return v
}

// behaviourRows are the rows of the tables TestBehaviour logs, in order.
func behaviourRows(log string) []string {
	var rows []string
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| framework ") {
			rows = append(rows, line)
		}
	}
	return rows
}

// A session store's benchmark (memorytest.Benchmark): where it runs, and its results.
type storeBench struct {
	name, dir, pkg string
	res            results
	err            error
}

// storeBenchmarks runs memorytest.Benchmark for each session store, each in its own go test
// (the sub-benchmarks have the same names in every package). A store whose server is not
// installed fails its run: the page says so rather than the report failing.
func storeBenchmarks(count int, benchtime string, log io.Writer) []storeBench {
	stores := []storeBench{
		{name: "InMemory", dir: "..", pkg: "./memory"},
		{name: "SQLite (a file)", dir: "..", pkg: "./memory/sqlite"},
		{name: "PostgreSQL 15 (loopback)", dir: "../memory/postgres", pkg: "."},
		{name: "Redis 7 (loopback)", dir: "../memory/redis", pkg: "."},
	}
	for i, st := range stores {
		if _, err := os.Stat(st.dir + "/" + st.pkg); err != nil {
			stores[i].err = err
			continue
		}
		var out bytes.Buffer
		args := []string{"test", "-run", "^$", "-bench", "^BenchmarkStore$", "-count", fmt.Sprint(count), "-benchtime", benchtime, "-timeout", "1h", st.pkg}
		stores[i].err = goCommand(st.dir, io.MultiWriter(&out, log), args...)
		stores[i].res = parse(out.String())
	}
	return stores
}
