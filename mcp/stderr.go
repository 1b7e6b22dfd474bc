package mcp

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// stderrTail is how much of the end of a server's stderr a failed connection reports, and
// how long a line of it may be in a log record.
const stderrTail = 2 << 10

// stderrLog reads the stderr of a Command server's process, where MCP servers write their
// logs and say why they cannot start: each line becomes an Info record of the Logger, and
// the last stderrTail bytes are kept for the error of a connection that failed. Its nil
// value (a server that is not a Command) does nothing.
type stderrLog struct {
	pr, pw *os.File      // the pipe; the process writes on pw
	done   chan struct{} // closed when reading ended
	mu     sync.Mutex
	tail   []byte
}

// readStderr makes cmd write its stderr on a pipe read by a goroutine of the Client. The
// process gets the pipe's file itself (not a copying goroutine of exec's, which cmd.Wait
// would wait for while a grandchild holds the pipe).
func (r *remote) readStderr(cmd *exec.Cmd) (*stderrLog, error) {
	if !readsStderr {
		return nil, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("mcp: server %q: a pipe for its stderr: %w", r.srv.Name, err)
	}
	cmd.Stderr = pw
	l := &stderrLog{pr: pr, pw: pw, done: make(chan struct{})}
	r.c.wg.Go(func() { l.read(r.log) })
	return l, nil
}

func (l *stderrLog) read(log *slog.Logger) {
	defer close(l.done)
	buf := make([]byte, 4096)
	var line []byte
	emit := func(b []byte) {
		if b = bytes.TrimRight(b, "\r"); len(b) > 0 {
			log.Info("mcp: the server wrote on stderr", "line", strings.ToValidUTF8(string(b), "\uFFFD"))
		}
	}
	for {
		n, err := l.pr.Read(buf)
		l.mu.Lock()
		l.tail = append(l.tail, buf[:n]...)
		l.tail = l.tail[max(0, len(l.tail)-stderrTail):]
		l.mu.Unlock()
		line = append(line, buf[:n]...)
		for i := bytes.IndexByte(line, '\n'); i >= 0; i = bytes.IndexByte(line, '\n') {
			emit(line[:i])
			line = line[i+1:]
		}
		if len(line) > stderrTail {
			emit(line)
			line = nil
		}
		if err != nil { // EOF: the process and all it started are gone; or end closed pr
			emit(line)
			return
		}
	}
}

// started closes this process's copy of the pipe's write end, once the process has it.
func (l *stderrLog) started() {
	if l != nil {
		_ = l.pw.Close()
	}
}

// end stops reading, once the process group was killed: what is left in the pipe is read
// first, for a little while (a process that escaped the group may hold the pipe), and end
// returns the tail of what the process wrote.
func (l *stderrLog) end() string {
	if l == nil {
		return ""
	}
	select {
	case <-l.done:
	case <-time.After(time.Second):
	}
	_ = l.pr.Close()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.ToValidUTF8(string(bytes.TrimSpace(l.tail)), "\uFFFD")
}
