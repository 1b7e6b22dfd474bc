package script

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Call is one tool call the scripted model emits.
type Call struct {
	ID, Name string
	// Args is the argument text exactly as a provider would send it.
	Args string
	// Map is Args decoded, for frameworks whose model interface carries decoded arguments
	// (adk-go's genai.FunctionCall). Nil when Args is not a JSON object.
	Map map[string]any
}

// Reply is the scripted model's answer: tool calls, or a text when Calls is empty.
type Reply struct {
	// N is the index of the reply in Script.Replies.
	N     int
	Calls []Call
	Text  string
}

// Result is a tool result as the model reads it.
type Result struct{ ID, Content string }

// View is what the scripted model reads of a request.
type View struct {
	// LastUser is the text of the latest user message.
	LastUser string
	// Results are the tool results after the latest assistant message, in the order they
	// appear in the request; empty when the request ends with a user message.
	Results []Result
}

// Script is a scripted model in framework-neutral terms.
type Script struct {
	// Replies is every reply Next can return; Replies[i].N == i.
	Replies []*Reply
	// Next decides the reply to a request. It is safe for concurrent use.
	Next func(v *View) *Reply
	// Tools are the names of the tools the agent must have (see Descriptions).
	Tools []string
}

func newScript(tools []string, replies []*Reply, next func(v *View) *Reply) *Script {
	for i, r := range replies {
		r.N = i
	}
	return &Script{Replies: replies, Next: next, Tools: tools}
}

// Descriptions are the tools' descriptions, the same in every framework.
var Descriptions = map[string]string{
	"get_weather": "查询指定城市的当前天气情况。当用户询问天气、温度、是否下雨等问题时使用。",
	"calculate":   "执行四则运算，当用户提出数学计算需求时使用。",
	"sleep":       "等待 50 毫秒后返回。",
	"step":        "返回 n+1。",
	"slow":        "慢工具：30 毫秒后返回。",
	"fast":        "快工具：立即返回。",
}

// Weather is the get_weather tool.
func Weather(city string) string {
	if w, ok := weather[city]; ok {
		return w
	}
	return city + "暂无数据"
}

var weather = map[string]string{
	"北京": "晴，气温26℃，东南风2级",
	"上海": "多云，气温28℃，湿度65%",
	"广州": "阵雨，气温30℃，体感较热",
}

var cities = []string{"北京", "上海", "广州"}

// Calculate is the calculate tool (it does not parse: the benchmarks measure loops).
func Calculate(expr string) string { return expr + " = 83699.1" }

// SleepDuration is how long the sleep tool sleeps.
const SleepDuration = 50 * time.Millisecond

// Sleep is the sleep tool.
func Sleep(ctx context.Context) string {
	t := time.NewTimer(SleepDuration)
	defer t.Stop()
	select {
	case <-t.C:
		return "slept"
	case <-ctx.Done():
		return "canceled"
	}
}

// Step is the step tool of the chain: it returns n+1.
func Step(n int) string { return strconv.Itoa(n + 1) }

// MaxIterations bounds the model calls of one run in every framework: the chain needs 21.
const MaxIterations = 30

// WindowTurns is how many of the latest turns the windowed ways of running the conversation
// (workload 4) keep: the hand-written window, the peers' turn- or item-count limits, and
// toolcall's memory.Window by count.
const WindowTurns = 20

// Input is the user message of the workloads other than the conversation.
const Input = "北京天气怎么样？顺便帮我算一下 123.45 * 678"

// Instructions is the system prompt of every agent.
const Instructions = "你是一个乐于助人的智能助手，可以通过工具获取实时信息。"

func weatherArgs(city string) Call {
	return Call{Name: "get_weather", Args: `{"city":"` + city + `"}`, Map: map[string]any{"city": city}}
}

// Round is workload 1: two parallel calls (get_weather, calculate), then an answer.
func Round() *Script {
	w := weatherArgs("北京")
	w.ID = "call_a"
	calls := &Reply{Calls: []Call{w,
		{ID: "call_b", Name: "calculate", Args: `{"expression":"123.45 * 678"}`, Map: map[string]any{"expression": "123.45 * 678"}},
	}}
	answer := &Reply{Text: "北京晴，26℃；123.45 * 678 = 83699.1"}
	return newScript([]string{"get_weather", "calculate"}, []*Reply{calls, answer}, func(v *View) *Reply {
		if len(v.Results) > 0 {
			return answer
		}
		return calls
	})
}

// Sleeps is workload 2 with n calls of the sleep tool in one turn, then an answer.
func Sleeps(n int) *Script {
	calls := &Reply{}
	for i := range n {
		calls.Calls = append(calls.Calls, Call{ID: "call_" + strconv.Itoa(i), Name: "sleep", Args: `{}`, Map: map[string]any{}})
	}
	answer := &Reply{Text: "done"}
	return newScript([]string{"sleep"}, []*Reply{calls, answer}, func(v *View) *Reply {
		if len(v.Results) > 0 {
			return answer
		}
		return calls
	})
}

// ChainLength is the number of dependent calls of workload 3.
const ChainLength = 20

// Chain is workload 3: n turns of one step call each, the argument of each the result of the
// previous one, then an answer. The model reads the last tool result.
func Chain(n int) *Script {
	replies := make([]*Reply, n+1)
	for k := range n {
		replies[k] = &Reply{Calls: []Call{{ID: "call_" + strconv.Itoa(k), Name: "step",
			Args: `{"n":` + strconv.Itoa(k) + `}`, Map: map[string]any{"n": float64(k)}}}}
	}
	replies[n] = &Reply{Text: "the chain ended at " + strconv.Itoa(n)}
	return newScript([]string{"step"}, replies, func(v *View) *Reply {
		if len(v.Results) == 0 {
			return replies[0]
		}
		k := ParseStep(v.Results[len(v.Results)-1].Content)
		if k < 0 || k > n {
			k = n
		}
		return replies[k]
	})
}

// ParseStep reads the step tool's result, however the framework wrapped it: 7, "7",
// {"result":"7"}. It returns -1 when there is no number.
func ParseStep(s string) int {
	i := strings.IndexAny(s, "0123456789")
	if i < 0 {
		return -1
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	k, _ := strconv.Atoi(s[i:j])
	return k
}

// ConversationTurns is the number of user turns of workload 4.
const ConversationTurns = 200

// Conversation is workload 4: turns user messages (Inputs); to each the model answers with one
// get_weather call, then with a text that quotes the result.
type Conversation struct {
	*Script
	Inputs []string
	// Misses counts requests whose latest user message was not one of Inputs: an adapter
	// or a framework that lost the user's message.
	Misses atomic.Int64
}

// NewConversation returns the script of a conversation of the given number of turns.
func NewConversation(turns int) *Conversation {
	c := &Conversation{Inputs: make([]string, turns)}
	turn := make(map[string]int, turns)
	replies := make([]*Reply, 0, 2*turns)
	for i := range turns {
		city := cities[i%len(cities)]
		c.Inputs[i] = "第" + strconv.Itoa(i+1) + "轮：" + city + "今天天气怎么样？需要带伞吗？"
		turn[c.Inputs[i]] = i
		call := weatherArgs(city)
		call.ID = "call_t" + strconv.Itoa(i+1)
		replies = append(replies, &Reply{Calls: []Call{call}},
			&Reply{Text: "第" + strconv.Itoa(i+1) + "轮：" + city + Weather(city) + "。" + umbrella(city)})
	}
	c.Script = newScript([]string{"get_weather"}, replies, func(v *View) *Reply {
		i, ok := turn[v.LastUser]
		if !ok {
			c.Misses.Add(1)
		}
		if len(v.Results) > 0 {
			return replies[2*i+1]
		}
		return replies[2*i]
	})
	return c
}

func umbrella(city string) string {
	if city == "广州" {
		return "有阵雨，记得带伞。"
	}
	return "不用带伞。"
}

// Recorder keeps the tool results the scripted model was sent, for the behaviour tests.
type Recorder struct {
	mu      sync.Mutex
	results [][]Result
}

func (r *Recorder) record(v *View) {
	if len(v.Results) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.results = append(r.results, append([]Result(nil), v.Results...))
}

// Results returns the tool results of every request that had some, in order.
func (r *Recorder) Results() [][]Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]Result(nil), r.results...)
}

// SlowFastDelay is how long the slow tool of the order test takes.
const SlowFastDelay = 30 * time.Millisecond

// Order is the emission-order test: one turn calling slow (first) and fast (second), so the
// second finishes first when calls run concurrently; then an answer. Rec receives the results.
func Order(rec *Recorder) *Script {
	calls := &Reply{Calls: []Call{
		{ID: "call_slow", Name: "slow", Args: `{}`, Map: map[string]any{}},
		{ID: "call_fast", Name: "fast", Args: `{}`, Map: map[string]any{}},
	}}
	answer := &Reply{Text: "done"}
	return newScript([]string{"slow", "fast"}, []*Reply{calls, answer}, func(v *View) *Reply {
		rec.record(v)
		if len(v.Results) > 0 {
			return answer
		}
		return calls
	})
}

// Bad is the failure test: one turn with one call of name with args, then an answer. Rec
// receives what the model was sent back.
func Bad(rec *Recorder, name, args string, decoded map[string]any) *Script {
	calls := &Reply{Calls: []Call{{ID: "call_bad", Name: name, Args: args, Map: decoded}}}
	answer := &Reply{Text: "done"}
	return newScript([]string{"get_weather", "calculate"}, []*Reply{calls, answer}, func(v *View) *Reply {
		rec.record(v)
		if len(v.Results) > 0 {
			return answer
		}
		return calls
	})
}

// The failure cases of the behaviour tests.
const (
	UnknownName   = "get_wether"
	TrailingComma = `{"city": "北京",}`
	NotJSON       = `not json`
)

var (
	logMu sync.Mutex
	log   []string
)

func logEvent(e string) {
	logMu.Lock()
	log = append(log, e)
	logMu.Unlock()
}

// Slow is the slow tool of the order test: it logs its start and end around a delay.
func Slow(ctx context.Context) string {
	logEvent("slow start")
	t := time.NewTimer(SlowFastDelay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	logEvent("slow end")
	return "slow"
}

// Fast is the fast tool of the order test.
func Fast(ctx context.Context) string {
	logEvent("fast start")
	logEvent("fast end")
	return "fast"
}

// TakeLog returns the events Slow and Fast logged since the last call, and clears them.
func TakeLog() []string {
	logMu.Lock()
	defer logMu.Unlock()
	l := log
	log = nil
	return l
}
