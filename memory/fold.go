package memory

import (
	"container/list"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// SummaryPrefix starts the content of the message that holds a fold's summary.
const SummaryPrefix = "[Summary of earlier conversation]"

// FoldOptions configures [Fold].
type FoldOptions struct {
	// Trigger is the token estimate (Counter.Messages) above which the oldest turns are
	// folded into the summary. It is also the limit of the view: when what must be kept —
	// the system prompt, the first user message, the summary and the latest Keep turns —
	// costs more, Apply fails with an error wrapping ErrBudgetTooSmall. Required.
	Trigger int
	// Target is what a fold brings the estimate down to, before the summary is added: a
	// fold takes in enough turns that the next ones do not need another at once. Zero
	// means Trigger/2. Must not exceed Trigger.
	Target int
	// Keep is the number of latest turns never folded (the current one included). Zero
	// means 2.
	Keep int
	// Summarizer writes the summaries, for example a ModelSummarizer. Required.
	Summarizer Summarizer
	// Counter counts the tokens. Nil means NewCounter(""), the cl100k_base tokenizer.
	Counter *Counter
	// Store, when set, keeps each session's summary (InMemory and memory/sqlite's Store
	// implement SummaryStore): after a restart the summary is read back instead of folding the whole
	// history again. Nil keeps summaries in memory only.
	Store SummaryStore
	// OnEvent, when set, is called after every fold, successful or not, from the run's
	// goroutine.
	OnEvent func(ctx context.Context, e FoldEvent)
}

// FoldEvent reports one fold.
type FoldEvent struct {
	// Session is the run's session ("" for runs that are not RunSession).
	Session string
	// Folded is the number of messages after the first user message that the summary
	// covers, this fold included (when it succeeded).
	Folded int
	// Batch is the number of messages this fold took in (or tried to).
	Batch int
	// Calls is the number of Summarizer calls made: folds of long histories are split into
	// chunks the summarizer can read.
	Calls int
	// Before and After are the token estimates of the view before and after the fold (After
	// is 0 when the fold failed).
	Before, After int
	// Summary is the new summary.
	Summary string
	// Err is the Summarizer's error: the request was sent without this fold (with the
	// previous summary, if any).
	Err error
	// StoreErr is an error of FoldOptions.Store (the fold itself went on).
	StoreErr error
}

// foldCacheSize bounds the sessions whose summary Fold keeps in memory (least recently
// used first out); a session evicted is read back from FoldOptions.Store or folded again.
const foldCacheSize = 1024

// Fold returns a strategy that folds the oldest turns into one summary when the request
// grows past FoldOptions.Trigger — the seed's advice: summarize the early tool-call records,
// keep the recent rounds in full.
//
// The system prompt, the first user message (the task) and the latest Keep turns are never
// folded. The others are folded oldest first, whole turns at a time, so every tool call stays
// with its results; the summary is written by the Summarizer, incrementally (the previous
// summary and the newly folded turns, never the whole history again), and in batches: a fold
// takes in turns until the estimate is down to Target (half the trigger by default), so the
// next requests need none. The summary is cached per session, and saved to
// FoldOptions.Store when one is set.
//
// The view sent is: the messages before the first user message, the first user message, the
// summary, then the turns not folded. The summary is an assistant message whose content
// starts with [SummaryPrefix] — an assistant message because it is the one role every
// OpenAI-compatible server accepts at that place: a system message in the middle of a
// history is refused by several local servers' chat templates, and a user message there
// would make two user messages in a row, which templates that require user and assistant
// turns to alternate refuse. Placed between the first user message and the next turn's user
// message, an assistant message keeps that alternation.
//
// Fold summarizes the whole history: it is no agentkit.TurnLimiter, so RunSession always
// loads the whole session for it.
//
// If the Summarizer fails (or returns nothing), Apply returns the view without this fold:
// the summary made before, if any, and the turns it does not cover (the history as it was
// given when there is none), and reports the error through OnEvent: a failed fold costs
// tokens, never the run. Chain a [Window] after Fold for a hard limit in that case; it keeps
// the summary.
//
// Folded messages are only left out of the request: the transcript and the store keep
// them, and [RecallTool] lets the model search them.
//
// Fold panics if Trigger is not positive, Target is negative or above Trigger, or the
// Summarizer is nil.
func Fold(opts FoldOptions) agentkit.ContextStrategy {
	if opts.Trigger <= 0 {
		panic("memory.Fold: Trigger must be positive, got " + strconv.Itoa(opts.Trigger))
	}
	if opts.Target < 0 || opts.Target > opts.Trigger {
		panic(fmt.Sprintf("memory.Fold: Target must be between 0 and Trigger (%d), got %d", opts.Trigger, opts.Target))
	}
	if opts.Summarizer == nil {
		panic("memory.Fold: nil Summarizer")
	}
	if opts.Target == 0 {
		opts.Target = opts.Trigger / 2
	}
	if opts.Keep <= 0 {
		opts.Keep = 2
	}
	if opts.Counter == nil {
		opts.Counter = NewCounter("")
	}
	return &fold{opts: opts, cache: make(map[foldKey]*list.Element), lru: list.New()}
}

type fold struct {
	opts FoldOptions

	mu    sync.Mutex
	cache map[foldKey]*list.Element // of *foldEntry
	lru   *list.List                // most recently used first
}

// foldKey identifies a conversation: the session, and its first user message, which tells
// apart the runs without a session (all "").
type foldKey struct {
	session string
	first   uint64
}

type foldEntry struct {
	key foldKey
	sum Summary
}

func (f *fold) Apply(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
	c := f.opts.Counter
	l := newLayout(msgs)
	if l.first < 0 {
		if n := c.Messages(msgs); n > f.opts.Trigger {
			return nil, fmt.Errorf("%w: fold: the history has no turn to fold and needs %d tokens, the trigger is %d", ErrBudgetTooSmall, n, f.opts.Trigger)
		}
		return clip3(msgs), nil
	}
	firstFP := fingerprint(&msgs[l.first])
	key := foldKey{session: session, first: firstFP}
	sum := f.lookup(ctx, key, msgs, &l)

	base := c.Messages(msgs[:l.first+1])
	sumTokens := 0
	if sum.Folded > 0 {
		sumTokens = c.Message(summaryMessage(sum.Text))
	}
	u0 := l.unitAt(l.first + 1 + sum.Folded)
	unitTokens := make([]int, len(l.units)-u0)
	rest := 0
	for u := u0; u < len(l.units); u++ {
		unitTokens[u-u0] = c.sum(msgs[l.start(u):l.start(u+1)])
		rest += unitTokens[u-u0]
	}
	before := base + sumTokens + rest
	if before <= f.opts.Trigger {
		return f.view(msgs, &l, sum), nil
	}

	// Fold a batch: from u0 up to the first unit whose rest brings the estimate down to
	// Target, never into the latest Keep turns.
	maxU := l.keepFrom(f.opts.Keep)
	u1 := u0
	for u1 < maxU && base+sumTokens+rest > f.opts.Target {
		rest -= unitTokens[u1-u0]
		u1++
	}
	from, to := l.start(u0), l.start(u1)
	if to <= from {
		return nil, fmt.Errorf("%w: fold: the system prompt, the first user message, the summary and the latest %d turns need %d tokens, the trigger is %d",
			ErrBudgetTooSmall, f.opts.Keep, before, f.opts.Trigger)
	}
	text, calls, err := f.summarize(ctx, sum.Text, msgs, &l, u0, u1, unitTokens)
	if err != nil {
		f.event(ctx, FoldEvent{Session: session, Folded: sum.Folded, Batch: to - from, Calls: calls, Before: before, Err: err})
		return f.view(msgs, &l, sum), nil // the summary made before, if any: never more than it stands for
	}
	next := Summary{Text: text, Folded: to - (l.first + 1), Fingerprint: mix(firstFP, fingerprint(&msgs[to-1]))}
	storeErr := f.save(ctx, key, next)
	after := base + c.Message(summaryMessage(next.Text)) + rest
	f.event(ctx, FoldEvent{Session: session, Folded: next.Folded, Batch: to - from, Calls: calls, Before: before, After: after, Summary: text, StoreErr: storeErr})
	if after > f.opts.Trigger {
		return nil, fmt.Errorf("%w: fold: after folding, the system prompt, the first user message, the summary (%d tokens) and the latest turns need %d tokens, the trigger is %d",
			ErrBudgetTooSmall, c.Message(summaryMessage(next.Text)), after, f.opts.Trigger)
	}
	return f.view(msgs, &l, next), nil
}

// summarize folds units [u0, u1) into previous, in chunks of at most Trigger tokens (a
// longer unit is a chunk of its own), one Summarizer call per chunk.
func (f *fold) summarize(ctx context.Context, previous string, msgs []openai.ChatCompletionMessage, l *layout, u0, u1 int, unitTokens []int) (string, int, error) {
	calls := 0
	for u := u0; u < u1; {
		end, size := u+1, unitTokens[u-u0]
		for end < u1 && size+unitTokens[end-u0] <= f.opts.Trigger {
			size += unitTokens[end-u0]
			end++
		}
		chunk := msgs[l.start(u):l.start(end)]
		u = end
		if len(chunk) == 0 {
			continue
		}
		calls++
		s, err := f.opts.Summarizer.Summarize(ctx, previous, clip3(chunk))
		if err != nil {
			return "", calls, err
		}
		if strings.TrimSpace(s) == "" {
			return "", calls, errors.New("memory: fold: the summarizer returned an empty summary")
		}
		previous = s
	}
	return previous, calls, nil
}

// view returns the history with the turns sum covers replaced by its message.
func (f *fold) view(msgs []openai.ChatCompletionMessage, l *layout, sum Summary) []openai.ChatCompletionMessage {
	if sum.Folded == 0 {
		return clip3(msgs)
	}
	return slices.Concat(msgs[:l.first+1], []openai.ChatCompletionMessage{summaryMessage(sum.Text)}, msgs[l.first+1+sum.Folded:])
}

func summaryMessage(text string) openai.ChatCompletionMessage {
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: SummaryPrefix + "\n" + text}
}

// lookup returns the session's summary when it fits msgs, from the cache or, on a cache
// miss, from the Store; otherwise the zero Summary. A miss is remembered too, so the Store
// is read once per conversation and process, not before every request.
func (f *fold) lookup(ctx context.Context, key foldKey, msgs []openai.ChatCompletionMessage, l *layout) Summary {
	f.mu.Lock()
	e, ok := f.cache[key]
	var sum Summary
	if ok {
		f.lru.MoveToFront(e)
		sum = e.Value.(*foldEntry).sum
	}
	f.mu.Unlock()
	if !ok && f.opts.Store != nil && key.session != "" {
		var err error
		if sum, err = f.opts.Store.LoadSummary(ctx, key.session); err != nil {
			f.event(ctx, FoldEvent{Session: key.session, StoreErr: err})
			return Summary{} // not remembered: try again next time
		}
		f.remember(key, sum)
	}
	if !fits(sum, key.first, msgs, l) {
		return Summary{}
	}
	return sum
}

// fits reports whether sum was made from msgs: it ends at a turn boundary of msgs and its
// fingerprint matches.
func fits(sum Summary, firstFP uint64, msgs []openai.ChatCompletionMessage, l *layout) bool {
	end := l.first + 1 + sum.Folded
	return sum.Folded > 0 && sum.Text != "" && end <= len(msgs) && l.unitAt(end) >= 0 &&
		sum.Fingerprint == mix(firstFP, fingerprint(&msgs[end-1]))
}

// save caches sum, and saves it to the Store.
func (f *fold) save(ctx context.Context, key foldKey, sum Summary) error {
	f.remember(key, sum)
	if f.opts.Store == nil || key.session == "" {
		return nil
	}
	return f.opts.Store.SaveSummary(ctx, key.session, sum)
}

func (f *fold) remember(key foldKey, sum Summary) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.cache[key]; ok {
		e.Value.(*foldEntry).sum = sum
		f.lru.MoveToFront(e)
		return
	}
	f.cache[key] = f.lru.PushFront(&foldEntry{key: key, sum: sum})
	if f.lru.Len() > foldCacheSize {
		old := f.lru.Back()
		f.lru.Remove(old)
		delete(f.cache, old.Value.(*foldEntry).key)
	}
}

func (f *fold) event(ctx context.Context, e FoldEvent) {
	if f.opts.OnEvent != nil {
		f.opts.OnEvent(ctx, e)
	}
}

// fingerprint identifies a message by what no strategy changes: its role, name, ids, tool
// calls, and its content unless it is a tool result (ClearToolResults replaces those). It is
// FNV-1a, stable across processes, for summaries saved in a Store.
func fingerprint(m *openai.ChatCompletionMessage) uint64 {
	h := fnv.New64a()
	str := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	str(m.Role)
	str(m.Name)
	str(m.ToolCallID)
	if m.Role != openai.ChatMessageRoleTool {
		str(m.Content)
		for _, p := range m.MultiContent {
			str(p.Text)
			if p.ImageURL != nil {
				str(p.ImageURL.URL)
			}
		}
	}
	for _, c := range m.ToolCalls {
		str(c.ID)
		str(c.Function.Name)
		str(c.Function.Arguments)
	}
	return h.Sum64()
}

func mix(a, b uint64) uint64 {
	h := fnv.New64a()
	h.Write(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, a), b))
	return h.Sum64()
}
