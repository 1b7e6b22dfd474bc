package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// terminateDuration is how long a subprocess may take to exit once its stdin is closed,
// then once sent SIGTERM, before it is killed.
const terminateDuration = 2 * time.Second

// logListChanged is the message of the Debug record of a notifications/tools/list_changed.
const logListChanged = "mcp: the server's tools changed; they are listed again before the next model request"

// remote is one server: its current session and its cached tools.
type remote struct {
	c   *Client
	srv ServerConfig
	sdk *sdkmcp.Client
	log *slog.Logger

	stale    atomic.Bool // a notifications/tools/list_changed came since the last list
	progress sync.Map    // progress token (string) → the context of the call it belongs to

	// transport is the HTTP transport of a URL server given no HTTPClient: the Client's
	// own, so that Close can close its idle connections. Nil otherwise.
	transport *http.Transport

	mu     sync.Mutex // guards the fields below; held while (re)connecting and listing
	sess   *session
	tools  []*tool.Tool
	closed bool
}

// session is one connection to the server.
type session struct {
	cs     *sdkmcp.ClientSession
	cmd    *exec.Cmd     // the subprocess of a Command server
	stderr *stderrLog    // and its stderr
	done   chan struct{} // closed when the session ended
}

func (s *session) ended() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func newRemote(c *Client, srv ServerConfig) *remote {
	r := &remote{c: c, srv: srv}
	if dt, ok := http.DefaultTransport.(*http.Transport); ok && srv.URL != "" && srv.HTTPClient == nil {
		r.transport = dt.Clone()
		r.srv.HTTPClient = &http.Client{Transport: r.transport}
	}
	logger := c.opts.Logger.With("mcp_server", srv.Name)
	r.log = logger
	opts := &sdkmcp.ClientOptions{
		Logger: logger,
		// No roots: the client has none to offer. Elicitation is always advertised (see
		// Options.Elicit); sampling only with a callback.
		Capabilities:       &sdkmcp.ClientCapabilities{},
		ElicitationHandler: r.elicit,
		ToolListChangedHandler: func(context.Context, *sdkmcp.ToolListChangedRequest) {
			r.stale.Store(true)
			logger.Debug(logListChanged)
		},
		ProgressNotificationHandler: r.onProgress,
	}
	if c.opts.Sample != nil {
		opts.CreateMessageHandler = r.sample
	}
	r.sdk = sdkmcp.NewClient(&sdkmcp.Implementation{Name: "toolcall", Version: "v0"}, opts)
	return r
}

func (r *remote) elicit(ctx context.Context, req *sdkmcp.ElicitRequest) (*sdkmcp.ElicitResult, error) {
	if r.c.opts.Elicit == nil {
		return &sdkmcp.ElicitResult{Action: "decline"}, nil
	}
	ctx, stop := r.c.bound(ctx)
	defer stop()
	return r.c.opts.Elicit(ctx, r.srv.Name, req)
}

func (r *remote) sample(ctx context.Context, req *sdkmcp.CreateMessageRequest) (*sdkmcp.CreateMessageResult, error) {
	ctx, stop := r.c.bound(ctx)
	defer stop()
	return r.c.opts.Sample(ctx, r.srv.Name, req)
}

// bound returns ctx, canceled also when the Client closes.
func (c *Client) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

func (r *remote) onProgress(_ context.Context, req *sdkmcp.ProgressNotificationClientRequest) {
	token, _ := req.Params.ProgressToken.(string)
	if v, ok := r.progress.Load(token); ok {
		p := req.Params
		agentkit.ReportProgress(v.(context.Context), agentkit.Progress{Done: p.Progress, Total: p.Total, Message: p.Message})
	}
}

// start opens the first session and lists the tools.
func (r *remote) start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.connectLocked(ctx)
}

// connectLocked replaces the session (if any) by a new one and lists its tools. The old
// session is closed in the background: closing waits for its calls still in flight, which
// end at their CallTimeout (or when the Client closes), and must not hold up the new one.
func (r *remote) connectLocked(ctx context.Context) error {
	if old := r.sess; old != nil {
		r.sess = nil
		r.c.wg.Go(func() { r.c.closeSession(old) })
	}
	ctx, cancel := r.c.bound(ctx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, r.srv.ConnectTimeout)
	defer cancelTimeout()
	s, err := r.dial(ctx)
	if err != nil {
		return &unansweredError{r.connectError(ctx, "connecting", err)}
	}
	r.sess = s
	if err := r.listLocked(ctx); err != nil {
		r.c.closeSession(s)
		r.sess = nil
		return err
	}
	return nil
}

// unansweredError is the error of a connection that could not be opened, or of a list the
// server did not answer (an error answer, a timeout, a cut connection), as opposed to a
// server that answered with tools the client refuses.
type unansweredError struct{ error }

func (e *unansweredError) Unwrap() error { return e.error }

func (r *remote) connectError(ctx context.Context, doing string, err error) error {
	if r.c.ctx.Err() != nil {
		return fmt.Errorf("mcp: server %q: the client was closed while %s: %w", r.srv.Name, doing, errClosed)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("mcp: server %q: %s took longer than its ConnectTimeout (%s): %w", r.srv.Name, doing, r.srv.ConnectTimeout, err)
	}
	return fmt.Errorf("mcp: server %q: %s: %w", r.srv.Name, doing, err)
}

// dial opens a session.
func (r *remote) dial(ctx context.Context) (*session, error) {
	s := &session{done: make(chan struct{})}
	var t sdkmcp.Transport
	switch {
	case r.srv.Command != "":
		s.cmd = exec.Command(r.srv.Command, r.srv.Args...)
		s.cmd.Env, s.cmd.Dir = r.srv.Env, r.srv.Dir
		setProcessGroup(s.cmd)
		var err error
		if s.stderr, err = r.readStderr(s.cmd); err != nil {
			return nil, err
		}
		t = trackedTransport{&sdkmcp.CommandTransport{Command: s.cmd, TerminateDuration: terminateDuration}}
	case r.srv.URL != "":
		t = &sdkmcp.StreamableClientTransport{Endpoint: r.srv.URL, HTTPClient: trackedHTTPClient(r.srv.HTTPClient)}
	default:
		t = track(r.srv.Transport)
	}
	cs, err := r.sdk.Connect(ctx, t, nil)
	s.stderr.started()
	if err != nil {
		killGroup(s.cmd)
		if said := s.stderr.end(); said != "" {
			err = fmt.Errorf("%w; the server wrote on stderr:\n%s", err, said)
		}
		return nil, err
	}
	s.cs = cs
	r.c.wg.Go(func() {
		_ = cs.Wait()
		close(s.done)
	})
	return s, nil
}

// closeSession closes s and kills what is left of its subprocess.
func (c *Client) closeSession(s *session) {
	_ = s.cs.Close()
	killGroup(s.cmd)
	s.stderr.end()
}

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

// listLocked lists the server's tools and rebuilds the cached ones.
func (r *remote) listLocked(ctx context.Context) error {
	r.stale.Store(false) // before listing: a change announced during the list is seen next time
	var list []*sdkmcp.Tool
	params := &sdkmcp.ListToolsParams{}
	cursors := map[string]bool{}
	for { // page by page, stopping at the first page past MaxTools: a list is bounded
		page, err := r.sess.cs.ListTools(ctx, params)
		if err != nil {
			r.stale.Store(true) // list again next time
			return &unansweredError{r.connectError(ctx, "listing the tools", err)}
		}
		list = append(list, page.Tools...)
		if len(list) > r.srv.MaxTools {
			r.stale.Store(true)
			more := ""
			if page.NextCursor != "" {
				more = "at least "
			}
			return fmt.Errorf("mcp: server %q advertises %s%d tools, over its MaxTools of %d: give it a higher MaxTools, or use a server with fewer tools", r.srv.Name, more, len(list), r.srv.MaxTools)
		}
		if page.NextCursor == "" {
			break
		}
		if cursors[page.NextCursor] { // the list would never end
			r.stale.Store(true)
			return fmt.Errorf("mcp: server %q: its tool list gives the cursor %q a second time", r.srv.Name, page.NextCursor)
		}
		cursors[page.NextCursor] = true
		params = &sdkmcp.ListToolsParams{Cursor: page.NextCursor}
	}
	tools, err := r.build(list)
	if err != nil {
		r.stale.Store(true)
		return err
	}
	r.tools = tools
	return nil
}

// build makes a *tool.Tool of each MCP tool.
func (r *remote) build(list []*sdkmcp.Tool) ([]*tool.Tool, error) {
	tools := make([]*tool.Tool, 0, len(list))
	seen := map[string]string{} // the model's name → the server's
	for _, mt := range list {
		name := modelName(r.srv.Prefix, mt.Name)
		switch other, dup := seen[name]; {
		case mt.Name == "":
			return nil, fmt.Errorf("mcp: server %q lists a tool without a name", r.srv.Name)
		case dup && other == mt.Name:
			return nil, fmt.Errorf("mcp: server %q lists the tool %q twice", r.srv.Name, mt.Name)
		case dup:
			return nil, fmt.Errorf("mcp: server %q lists the tools %q and %q, which are both offered to the model as %q (the characters providers refuse become underscores)", r.srv.Name, other, mt.Name, name)
		}
		seen[name] = mt.Name
		schema, err := json.Marshal(mt.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("mcp: server %q: tool %q: the input schema: %w", r.srv.Name, mt.Name, err)
		}
		var out json.RawMessage
		if mt.OutputSchema != nil {
			if out, err = json.Marshal(mt.OutputSchema); err != nil {
				return nil, fmt.Errorf("mcp: server %q: tool %q: the output schema: %w", r.srv.Name, mt.Name, err)
			}
		}
		if len(mt.Description) > maxDescription {
			r.log.Warn("mcp: a tool's description is cut for the model", "tool", mt.Name, "bytes", len(mt.Description), "kept", maxDescription)
		}
		a := annotations(mt)
		fn := func(ctx context.Context, args json.RawMessage) (*Result, error) {
			return r.call(ctx, mt.Name, out, args)
		}
		t, err := tool.Raw(name, description(r.srv.Name, mt), schema, fn,
			tool.Options{Annotations: a, Sequential: r.c.opts.Sequential(r.srv.Name, a)})
		if err != nil {
			return nil, fmt.Errorf("mcp: server %q: %w", r.srv.Name, err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// modelName is the name the model calls the server's tool name by: prefix and name, each
// character providers refuse in a function name (MCP allows dots, and SDKs let any string
// through) an underscore, and a name longer than providers accept cut to 55 bytes followed
// by "_" and 8 hex digits of a hash of the whole, which keeps two long names apart. Prefix is
// checked by Connect.
func modelName(prefix, name string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, c := range name {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > maxNameLen {
		sum := sha256.Sum256([]byte(prefix + name))
		s = s[:maxNameLen-9] + "_" + hex.EncodeToString(sum[:4])
	}
	return s
}

// maxNameLen is the longest function name providers accept (see namePattern).
const maxNameLen = 64

// maxDescription bounds the bytes of a tool's description the model reads: a description
// is sent with every model request, and a server's is data, not code.
const maxDescription = 16 << 10

// description is what the model reads of a tool: the server's description (cut at
// maxDescription bytes, saying so), or, when the server gave none (tool.Raw refuses an
// empty one), its title or a sentence naming it.
func description(server string, t *sdkmcp.Tool) string {
	switch {
	case len(t.Description) > maxDescription:
		n := maxDescription
		for n > 0 && !utf8.RuneStart(t.Description[n]) { // not in the middle of a character
			n--
		}
		return fmt.Sprintf("%s\n[This description was cut at %d of its %d bytes.]", t.Description[:n], n, len(t.Description))
	case strings.TrimSpace(t.Description) != "":
		return t.Description
	case t.Title != "":
		return t.Title
	case t.Annotations != nil && t.Annotations.Title != "":
		return t.Annotations.Title
	}
	return fmt.Sprintf("Tool %s of the MCP server %s.", t.Name, server)
}

// annotations maps MCP's tool annotations to toolcall's, with the same meanings and
// defaults; the title is the tool's, else its annotations'.
func annotations(t *sdkmcp.Tool) tool.Annotations {
	a := tool.Annotations{Title: t.Title}
	h := t.Annotations
	if h == nil {
		return a
	}
	if a.Title == "" {
		a.Title = h.Title
	}
	a.ReadOnly, a.Idempotent = h.ReadOnlyHint, h.IdempotentHint
	if h.DestructiveHint != nil {
		v := *h.DestructiveHint
		a.Destructive = &v
	}
	if h.OpenWorldHint != nil {
		v := *h.OpenWorldHint
		a.OpenWorld = &v
	}
	return a
}

// cached returns the tools of the last list.
func (r *remote) cached() []*tool.Tool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tools
}

// refresh lists the tools again when the server announced a change, and reconnects first
// when the session ended. A server that cannot be reached, or does not answer the list,
// keeps its last tools: the run goes on, the list is tried again at the next request, and
// each call of them that finds no session tries one reconnection and, failing, says why.
func (r *remote) refresh(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var err error
	switch {
	case r.closed:
		return errClosed
	case r.sess == nil || r.sess.ended():
		err = r.connectLocked(ctx)
	case r.stale.Load():
		ctx, cancel := r.c.bound(ctx) // Close must not wait for a server that never answers
		defer cancel()
		ctx, cancelTimeout := context.WithTimeout(ctx, r.srv.ConnectTimeout)
		defer cancelTimeout()
		err = r.listLocked(ctx)
	}
	var down *unansweredError
	if errors.As(err, &down) && r.c.ctx.Err() == nil {
		r.log.Warn("mcp: the server cannot be reached or did not answer its tool list; its last tools stay offered", "error", err)
		return nil
	}
	return err
}

// live returns the current session, reconnecting once when it ended (or when old, a
// session found lost, is still the current one).
func (r *remote) live(ctx context.Context, old *session) (*session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errClosed
	}
	if r.sess != nil && r.sess != old && !r.sess.ended() {
		return r.sess, nil
	}
	if err := r.connectLocked(ctx); err != nil {
		return nil, fmt.Errorf("%w (the session was lost; one reconnection was tried)", err)
	}
	return r.sess, nil
}

// close ends the session for good.
func (r *remote) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.sess != nil {
		r.c.closeSession(r.sess)
		r.sess = nil
	}
}
