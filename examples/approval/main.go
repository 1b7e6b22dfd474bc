// Command approval shows a run that pauses for a person's approval, survives the process
// that started it, and resumes exactly once, offline on a scripted model.
//
//	go run ./examples/approval -state run.json "转账 500 元给 bob"    # pauses, writes run.json, exits 0
//	go run ./examples/approval -state run.json -approve call_1        # shows the pending call, runs it, answers
//	go run ./examples/approval -state run.json -reject call_1 -message "金额不对"
//
// The first invocation asks the agent to transfer money. The transfer tool requires approval
// (tool.Options.RequireApproval), so the run pauses: its state — the transcript, the pending
// call with its validated arguments, the run's counters — is signed with an HMAC key and
// written to the -state file, and the program exits. A later invocation, in another process,
// reads the file, shows the pending calls, and resumes the run with the decision given on the
// command line: the approved transfer runs, or the model is told the user rejected it, and
// the answer is printed.
//
// Exactly once: resuming the same file again fails with a clear message and runs nothing,
// also when two processes resume it at the same time. Each resume claims the pause in a
// SQLite ledger next to the state (<state>.ledger.db). The key is read from -key (a file,
// default <state>.key), created with 32 random bytes when missing; the SDK reads no
// environment variables, and neither does this program.
//
// The exit status is 0 when the run paused or answered, 1 with one line on stderr saying what
// went wrong (a tampered state, a second resume, a missing decision), 2 for bad flags.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory/sqlite"
	"github.com/toolcall/toolcall/tool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// config is what the command line asks for.
type config struct {
	state, key       string
	approve, reject  []string
	message, request string
}

func parse(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("approval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	var approve, reject string
	fs.StringVar(&c.state, "state", "run.json", "the file the paused run's state is written to and read from")
	fs.StringVar(&c.key, "key", "", "the file holding the HMAC key that signs the state (default <state>.key, created when missing)")
	fs.StringVar(&approve, "approve", "", "resume, approving these calls (comma-separated ids)")
	fs.StringVar(&reject, "reject", "", "resume, rejecting these calls (comma-separated ids)")
	fs.StringVar(&c.message, "message", "", "with -reject: the reason, for the model")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: approval -state FILE REQUEST\n       approval -state FILE [-approve IDS] [-reject IDS [-message TEXT]]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.approve, c.reject = ids(approve), ids(reject)
	c.request = strings.TrimSpace(strings.Join(fs.Args(), " "))
	if c.key == "" {
		c.key = c.state + ".key"
	}
	resuming := len(c.approve)+len(c.reject) > 0
	if resuming == (c.request != "") {
		fmt.Fprintln(stderr, "approval: give either a request, or decisions (-approve, -reject)")
		fs.Usage()
		return c, flag.ErrHelp
	}
	return c, nil
}

func ids(s string) []string {
	var out []string
	for _, id := range strings.Split(s, ",") {
		if id = strings.TrimSpace(id); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// run is the whole program, its outputs passed in so tests can drive it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parse(args, stderr)
	if err != nil {
		return 2
	}
	if err := execute(ctx, c, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "approval:", err)
		return 1
	}
	return 0
}

func execute(ctx context.Context, c config, stdout, stderr io.Writer) error {
	key, err := loadKey(c.key)
	if err != nil {
		return err
	}
	ledger, err := sqlite.Open(c.state+".ledger.db", nil)
	if err != nil {
		return err
	}
	defer ledger.Close()
	opts := &agentkit.Options{
		Instructions: "你是银行助手。转账前必须得到用户批准。",
		Tools:        []*tool.Tool{transferTool(stderr)},
		Ledger:       ledger,
		PauseKey:     key,
	}
	if c.request != "" {
		return start(ctx, opts, c, stdout)
	}
	return resume(ctx, opts, c, stdout)
}

// start runs the request until it pauses, and writes the state.
func start(ctx context.Context, opts *agentkit.Options, c config, stdout io.Writer) error {
	res, err := agentkit.New(offlineModel(c.request), opts).Run(ctx, c.request)
	if !errors.Is(err, agentkit.ErrPaused) {
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, res.Output)
		return nil
	}
	data, err := json.MarshalIndent(res.Pause, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.state, data, 0o600); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "paused: the run waits for approval; its signed state is in %s\n", c.state)
	showPending(stdout, res.Pause)
	fmt.Fprintf(stdout, "resume with: approval -state %s -approve %s   (or -reject ID -message TEXT)\n", c.state, res.Pause.Pending[0].ID)
	return nil
}

// resume reads the state, shows its pending calls, and resumes it with the decisions.
func resume(ctx context.Context, opts *agentkit.Options, c config, stdout io.Writer) error {
	data, err := os.ReadFile(c.state)
	if err != nil {
		return fmt.Errorf("no paused run to resume: %w", err)
	}
	var p agentkit.Pause
	if err := json.Unmarshal(data, &p); err != nil {
		return fmt.Errorf("%s is not a paused run's state: %w", c.state, err)
	}
	showPending(stdout, &p)
	var decisions []agentkit.Decision
	for _, id := range c.approve {
		decisions = append(decisions, agentkit.Decision{CallID: id, Approve: true})
	}
	for _, id := range c.reject {
		decisions = append(decisions, agentkit.Decision{CallID: id, Message: c.message})
	}
	res, err := agentkit.New(offlineModel(""), opts).Resume(ctx, &p, decisions)
	switch {
	case errors.Is(err, agentkit.ErrAlreadyResumed):
		return fmt.Errorf("this run was already resumed (pause %s): nothing ran again", p.ID)
	case errors.Is(err, agentkit.ErrPauseTampered):
		return fmt.Errorf("%s was altered since the run paused, or was signed with another key: nothing ran", c.state)
	case errors.Is(err, agentkit.ErrDecision):
		return fmt.Errorf("%w (every pending call needs -approve or -reject)", err)
	case err != nil:
		return err
	}
	fmt.Fprintln(stdout, res.Output)
	return nil
}

func showPending(w io.Writer, p *agentkit.Pause) {
	for _, c := range p.Pending {
		var args bytes.Buffer
		if json.Compact(&args, c.Arguments) != nil {
			args.Reset()
			args.Write(c.Arguments)
		}
		fmt.Fprintf(w, "pending: %s %s %s (%s)\n", c.ID, c.Name, args.String(), c.Kind)
	}
}

// loadKey reads the HMAC key from path, creating it with 32 random bytes when missing; an
// empty file is refused.
func loadKey(path string) ([]byte, error) {
	key, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		key = []byte(rand.Text() + rand.Text()) // 52 base32 characters, 260 random bits
		if err := os.WriteFile(path, key, 0o600); err != nil {
			return nil, fmt.Errorf("creating the key: %w", err)
		}
		return key, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the key: %w", err)
	}
	if len(key) == 0 { // anyone can sign with an empty key: agentkit.New refuses one
		return nil, fmt.Errorf("the key file %s is empty: remove it to have a new key made (states signed with the old key then no longer resume)", path)
	}
	return key, nil
}

type transferArgs struct {
	To     string `json:"to" jsonschema:"description=收款人"`
	Amount int    `json:"amount" jsonschema:"description=金额（元）,minimum=1,maximum=50000"`
}

// transferTool moves money, so it requires approval; it reports each transfer on stderr.
func transferTool(stderr io.Writer) *tool.Tool {
	return tool.New("transfer", "向收款人转账，金额以元计。",
		func(ctx context.Context, in transferArgs) (string, error) {
			fmt.Fprintf(stderr, "bank: transferred %d to %s\n", in.Amount, in.To)
			return fmt.Sprintf("已向 %s 转账 %d 元", in.To, in.Amount), nil
		}, tool.Options{RequireApproval: true})
}

var (
	amountRe = regexp.MustCompile(`(\d+)`)
	toRe     = regexp.MustCompile(`给\s*(\S+)`)
)

// offlineModel stands in for a real model: on a request it calls transfer with what the
// request says; once it reads the transfer's result it answers from it.
func offlineModel(request string) agentkit.Model {
	if request != "" {
		amount, to := "100", "alice"
		if m := amountRe.FindStringSubmatch(request); m != nil {
			amount = m[1]
		}
		if m := toRe.FindStringSubmatch(request); m != nil {
			to = m[1]
		}
		args, _ := json.Marshal(map[string]any{"to": to, "amount": mustAtoi(amount)})
		return agentkittest.New(nil, agentkittest.ToolCalls(agentkittest.Call("transfer", string(args))))
	}
	return agentkittest.New(nil, agentkittest.Func(func(req openai.ChatCompletionRequest) agentkittest.Reply {
		msgs := req.Messages
		result := msgs[len(msgs)-1].Content
		if strings.HasPrefix(result, "error:") {
			return agentkittest.Text("好的，没有转账。" + strings.TrimPrefix(result, "error: "))
		}
		return agentkittest.Text("完成：" + result + "。")
	}))
}

func mustAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}
