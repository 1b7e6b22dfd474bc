package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// The defaults of ServerConfig's zero fields.
const (
	// DefaultCallTimeout bounds a tool call when ServerConfig.CallTimeout is zero: long enough for
	// a tool that does real work (a build, a search, a page fetch), short enough that a
	// server that never answers costs the run one minute, not its whole deadline.
	DefaultCallTimeout = 60 * time.Second
	// DefaultConnectTimeout bounds starting a server, its initialization and its first tool
	// list when ServerConfig.ConnectTimeout is zero: npx may have to fetch a package first.
	DefaultConnectTimeout = 30 * time.Second
	// DefaultMaxTools bounds the tools a server may advertise when ServerConfig.MaxTools is zero:
	// 128 is the most tools OpenAI accepts in one request.
	DefaultMaxTools = 128
)

// ServerConfig says how to reach one MCP server. Exactly one of Command, URL and Transport is set.
// The zero values of the other fields give the documented defaults.
type ServerConfig struct {
	// Name names the server in errors, logs and the Options callbacks. It is required,
	// matches ^[a-zA-Z0-9_-]{1,64}$, and is unique among a Client's servers.
	Name string

	// Command, with Args, runs the server as a subprocess spoken to over stdin and stdout.
	// It is looked up in PATH as exec.Command does; each (re)connection starts a fresh
	// process, in a process group of its own that Close kills whole (and, on Linux, that
	// the kernel kills if this process dies first). Env is its environment (nil: this
	// process's, as exec.Cmd), Dir its working directory (empty: this process's). On unix
	// its stderr goes to Options.Logger, a record a line, and the error of a connection
	// that failed ends with the last 2 KiB of it (where a server says why it cannot start);
	// elsewhere it is discarded.
	Command string
	Args    []string
	Env     []string
	Dir     string

	// URL is the endpoint of a server spoken to over streamable HTTP, with HTTPClient. Nil
	// HTTPClient: a client of the Client's own, with http.DefaultTransport's settings, whose
	// connections Close closes (those of an HTTPClient given here are its owner's to close).
	URL        string
	HTTPClient *http.Client

	// Transport reaches the server any other way: an *sdkmcp.SSEClientTransport for a
	// server on the older HTTP+SSE transport, sdkmcp.NewInMemoryTransports in tests. The
	// context its Connect gets ends once the session is initialized: a connection must not
	// depend on it afterwards (the SSE transport's does, and is given one that lasts).
	// Reconnecting calls its Connect again: a transport that connects only once cannot
	// reconnect, and a lost session then fails clearly.
	Transport sdkmcp.Transport

	// Prefix is prepended to the name of each of the server's tools ("fs_" gives
	// "fs_read_file"), so that two servers with a tool of the same name can coexist. It
	// matches ^[a-zA-Z0-9_-]{0,32}$. The model calls each tool by a name providers accept
	// (^[a-zA-Z0-9_-]{1,64}$): in the prefixed name, each other character (a dot, which MCP
	// allows, a space, a letter of another script) becomes an underscore, and a name longer
	// than 64 bytes is cut to 55, followed by "_" and 8 hex digits of a hash of the whole.
	// The server is called by its own name, which Result.Tool holds. Two tools of one server
	// whose names become the same fail Connect (or the refresh), naming both.
	Prefix string
	// CallTimeout bounds each tool call; zero means DefaultCallTimeout. A call past it
	// gets a tool.KindTimeout result the model reads, and the run goes on.
	CallTimeout time.Duration
	// ConnectTimeout bounds connecting, initializing and listing the tools, at Connect and
	// at each reconnection; zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// MaxTools bounds the tools the server may advertise; zero means DefaultMaxTools. A
	// server advertising more fails Connect (or the refresh) with an error naming it.
	MaxTools int
}

// Options configures a Client. The zero Options (or nil) gives the defaults documented on
// each field.
type Options struct {
	// Elicit answers a server's request for information from the user
	// (elicitation/create), with the Name of the ServerConfig asking: an application shows
	// req.Params.Message and a form, and returns what the user chose. Nil declines every
	// request. The client always advertises elicitation, so that a server that asks for
	// confirmation before acting (when the client supports it) is declined rather than
	// taken as having no one to ask. On the protocol of 2026-07-28 (multi round-trip
	// requests) ctx is the tool call's (tool.CallFromContext names it); on earlier ones,
	// where the server sends a request of its own, it is that request's. Close cancels it.
	Elicit func(ctx context.Context, server string, req *sdkmcp.ElicitRequest) (*sdkmcp.ElicitResult, error)
	// Sample answers a server's request for an LLM completion (sampling/createMessage),
	// with the Name of the ServerConfig asking. Nil refuses every request, and the client then
	// does not advertise sampling, so that servers offer only what works without it. ctx
	// is as for Elicit. (MCP deprecates sampling as of protocol 2026-07-28, SEP-2577; it is
	// here for the servers that still ask.)
	Sample func(ctx context.Context, server string, req *sdkmcp.CreateMessageRequest) (*sdkmcp.CreateMessageResult, error)
	// Sequential reports which tools' calls must run one at a time (tool.Options.Sequential),
	// from the Name of their ServerConfig and their annotations. Nil makes sequential every tool
	// not marked read-only: the calls of one turn to tools that change the world run in the
	// order the model emitted them.
	Sequential func(server string, a tool.Annotations) bool
	// Logger receives the client's logs and the go-sdk's, each with the server's name as
	// the attribute mcp_server: an Info for each line a Command server writes on stderr (on
	// unix); a Warn for a server that cannot be reached or does not answer its tool list, a
	// call sent again after a reconnection, a tool description cut (see Client.Tools); a
	// Debug for each notifications/tools/list_changed. Nil discards them.
	Logger *slog.Logger
}

// A Client holds sessions with MCP servers and offers their tools as *tool.Tool values: it
// is an agentkit.Toolset, for agentkit.Options.Toolsets. Build one with [Connect]; it is
// safe for concurrent use; [Client.Close] releases it. The zero Client has no servers: no
// tools, and nothing to close.
type Client struct {
	opts    Options
	remotes []*remote

	ctx    context.Context // canceled by Close: running calls and callbacks end
	cancel context.CancelFunc
	wg     sync.WaitGroup // the goroutines watching sessions
	tokens atomic.Uint64  // numbers the calls' progress tokens

	closeOnce sync.Once
}

var _ agentkit.Toolset = (*Client)(nil)

// namePattern is what providers accept as a function name, and what a ServerConfig's Name
// must be; prefixPattern is what its Prefix must be, so that some of each name follows it.
var (
	namePattern   = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	prefixPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{0,32}$`)
)

// Connect connects to every server (in parallel), initializes each session and lists each
// server's tools. On any failure it closes what it opened and returns an error naming the
// server: a bad ServerConfig, a server that cannot be started or reached, a failed handshake, a
// server answering something other than JSON-RPC, too many tools (ServerConfig.MaxTools), a tool
// tool.Raw refuses (a bad or oversized schema), two tools of one server whose names become
// the same (see ServerConfig.Prefix), two servers with a tool of the same name. opts may be nil.
func Connect(ctx context.Context, servers []ServerConfig, opts *Options) (*Client, error) {
	c := &Client{}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.Logger == nil {
		c.opts.Logger = slog.New(slog.DiscardHandler)
	}
	if c.opts.Sequential == nil {
		c.opts.Sequential = func(_ string, a tool.Annotations) bool { return !a.ReadOnly }
	}
	if err := checkServers(servers); err != nil {
		return nil, err
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	for _, s := range servers {
		c.remotes = append(c.remotes, newRemote(c, withDefaults(s)))
	}
	errs := make([]error, len(c.remotes))
	var wg sync.WaitGroup
	for i, r := range c.remotes {
		wg.Go(func() { errs[i] = r.start(ctx) })
	}
	wg.Wait()
	err := errors.Join(errs...)
	if err == nil {
		_, err = c.collect()
	}
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// checkServers checks what Connect can check without connecting.
func checkServers(servers []ServerConfig) error {
	seen := map[string]bool{}
	for i, s := range servers {
		if !namePattern.MatchString(s.Name) {
			return fmt.Errorf("mcp: servers[%d]: name %q must match ^[a-zA-Z0-9_-]{1,64}$", i, s.Name)
		}
		if seen[s.Name] {
			return fmt.Errorf("mcp: two servers are named %q", s.Name)
		}
		seen[s.Name] = true
		n := 0
		for _, set := range []bool{s.Command != "", s.URL != "", s.Transport != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("mcp: server %q: set exactly one of Command, URL and Transport", s.Name)
		}
		if !prefixPattern.MatchString(s.Prefix) {
			return fmt.Errorf("mcp: server %q: Prefix %q must match %s", s.Name, s.Prefix, prefixPattern)
		}
		if s.CallTimeout < 0 || s.ConnectTimeout < 0 || s.MaxTools < 0 {
			return fmt.Errorf("mcp: server %q: negative CallTimeout, ConnectTimeout or MaxTools", s.Name)
		}
	}
	return nil
}

func withDefaults(s ServerConfig) ServerConfig {
	if s.CallTimeout == 0 {
		s.CallTimeout = DefaultCallTimeout
	}
	if s.ConnectTimeout == 0 {
		s.ConnectTimeout = DefaultConnectTimeout
	}
	if s.MaxTools == 0 {
		s.MaxTools = DefaultMaxTools
	}
	s.Args = slices.Clone(s.Args)
	s.Env = slices.Clone(s.Env) // nil stays nil: inherit the environment, as exec.Cmd
	return s
}

// Tools implements agentkit.Toolset: the tools of every server, in the order of the
// servers given to Connect. The list is cached; a server that sent
// notifications/tools/list_changed since the last call is listed again, and a server whose
// session ended is reconnected (one try) and listed again — so that changes reach the
// model at its next request, never in the middle of a turn. The servers are refreshed in
// parallel, each within its ConnectTimeout. A server that cannot be reached, or does not
// answer its list (an error answer, a timeout, a cut connection), keeps its last tools
// (logged as a warning): the run goes on, the server is tried again at the next request,
// and each call of its tools that finds no session tries one reconnection and fails saying
// why. Tools fails (which ends an agent's run), naming the server, when a server answers
// the list with tools the client refuses (too many, a bad schema, two names made one), or
// with a tool whose name another server's tool has. A tool's description is
// sent with every model request: one longer than 16 KiB is cut there, and says so.
func (c *Client) Tools(ctx context.Context) ([]*tool.Tool, error) {
	if c.ctx == nil { // the zero Client
		return nil, nil
	}
	if c.ctx.Err() != nil {
		return nil, errClosed
	}
	errs := make([]error, len(c.remotes))
	var wg sync.WaitGroup
	for i, r := range c.remotes { // in parallel: each may have to reconnect
		wg.Go(func() { errs[i] = r.refresh(ctx) })
	}
	wg.Wait()
	if c.ctx.Err() != nil {
		return nil, errClosed
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c.collect()
}

// collect returns the cached tools of every server, refusing a name two servers share.
func (c *Client) collect() ([]*tool.Tool, error) {
	var all []*tool.Tool
	owner := map[string]string{}
	for _, r := range c.remotes {
		for _, t := range r.cached() {
			if other, dup := owner[t.Name()]; dup {
				return nil, fmt.Errorf("mcp: servers %q and %q both have a tool named %q: give one of them a Prefix", other, r.srv.Name, t.Name())
			}
			owner[t.Name()] = r.srv.Name
			all = append(all, t)
		}
	}
	return all, nil
}

// errClosed is returned by a Client after Close.
var errClosed = errors.New("mcp: the client is closed")

// Close ends every session: it cancels running calls and callbacks, closes the sessions,
// kills the subprocesses (with anything they started), waits for every goroutine the
// Client started and closes the idle connections of the HTTP clients it made. It is
// idempotent; the calls and Tools after it fail. The error is always nil: a server that
// exits badly once told to has nothing left to report (the error is there for io.Closer).
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		if c.cancel == nil { // the zero Client
			return
		}
		c.cancel()
		var wg sync.WaitGroup
		for _, r := range c.remotes {
			wg.Go(r.close)
		}
		wg.Wait()
		c.wg.Wait()
		for _, r := range c.remotes {
			if r.transport != nil {
				r.transport.CloseIdleConnections()
			}
		}
	})
	return nil
}
