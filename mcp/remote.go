package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

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
