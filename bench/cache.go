package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/memory"
)

// The prompt-cache workload (issue 20): a long conversation, one tool call per turn with a
// result of about 800 bytes, then an answer of about 30 words, under a system prompt of about
// 360 tokens. Every way of keeping its history runs it through its own OpenAI client against
// CacheServer, which records every request as it came over the wire and answers it from the
// script; CacheStats then says how much of each request a provider's prompt cache would
// have served.

// CacheTurns is the number of turns of the prompt-cache workload: 400 model requests.
const CacheTurns = 200

// CacheModel is the model name the workload's requests carry, and whose tokenizer counts them.
const CacheModel = "gpt-4o"

// CacheInstructions is the workload's system prompt, about 360 tokens.
var CacheInstructions = strings.TrimSpace(`
You are the operations assistant of a logistics company that plans deliveries across many
cities. You answer questions from dispatchers about the weather, road conditions and the
risks they bring to the day's deliveries. Always call the get_report tool for the city the
dispatcher names before you answer, even if you answered about that city before: conditions
change during the day, and an answer from an old report can send a truck into a storm.
Read the whole report: the temperature, the wind, the precipitation, the visibility, the
state of the main roads, the warnings in force and the forecast for the next hours.
Then answer in one or two short sentences: say whether deliveries can go ahead as planned,
should be delayed, or must be cancelled, and give the one fact from the report that decides
it. Do not repeat the report. Do not invent facts that the report does not contain. If the
report is missing or says that there is no data, say so and advise the dispatcher to call
the regional office. Use metric units. Be polite and brief: dispatchers read your answers on
a phone while they drive between depots, and they have no time for long explanations. Never
give medical, legal or financial advice. When a dispatcher asks about several cities, call
the tool once for each city. When a question is not about weather, roads or deliveries,
say that you can only help with those, and suggest whom to ask instead. Keep a neutral,
factual tone, and never blame drivers, customers or other teams for delays.`)

var cacheCities = []string{"Berlin", "Madrid", "Lisbon", "Warsaw", "Vienna", "Prague", "Dublin", "Oslo", "Rome", "Paris", "Athens"}

// CacheInput is the user message of turn i (from 0).
func CacheInput(i int) string {
	return "Turn " + strconv.Itoa(i+1) + ": can the deliveries in " + cacheCities[i%len(cacheCities)] + " go ahead this afternoon?"
}

// CacheReport is the get_report tool's result for city at turn i: about 800 bytes.
func CacheReport(city string, i int) string {
	t, w, r := 5+i%17, 10+i*7%40, i*13%30
	return fmt.Sprintf("Weather and road report for %s, issued at %02d:%02d local time (report %d). "+
		"Temperature %d °C, feels like %d °C; relative humidity %d %%; pressure %d hPa, %s. "+
		"Wind from the %s at %d km/h, gusts up to %d km/h. Precipitation in the last hour %d.%d mm, "+
		"probability of precipitation in the next three hours %d %%. Visibility %d km. "+
		"Main roads: the ring road is %s; the northern bridge is %s; roadworks on the eastern "+
		"access road reduce it to one lane between 09:00 and 17:00. Warnings in force: %s. "+
		"Forecast for the next six hours: %s, with temperatures between %d and %d °C and winds "+
		"easing to %d km/h by the evening. Road surface temperature %d °C, no ice expected. "+
		"Next update in one hour; the regional office can be reached on its usual number.",
		city, 6+i%12, i*7%60, 1000+i, t, t-2, 40+i*3%50, 990+i%35, []string{"rising", "steady", "falling"}[i%3],
		[]string{"north", "south-west", "east", "west"}[i%4], w, w+15, r/10, r%10, r*3%100, 2+i%18,
		[]string{"clear", "slow in both directions", "closed for an accident near exit 4"}[i%3],
		[]string{"open", "open with a speed limit of 60 km/h"}[i%2],
		[]string{"none", "yellow warning for wind", "orange warning for heavy rain"}[i%3],
		[]string{"dry and bright", "showers spreading from the west", "cloudy with light rain"}[i%3], t-1, t+4, w/2, t-3)
}

// CacheAnswer is the model's answer at turn i: about 30 words.
func CacheAnswer(city string, i int) string {
	return fmt.Sprintf("Turn %d: deliveries in %s can go ahead as planned this afternoon; the report shows winds of %d km/h "+
		"and no warning that affects the main roads, so no delay is needed for now.", i+1, city, 10+i*7%40)
}

// CacheToolName is the workload's one tool, get_report(city).
const CacheToolName = "get_report"

// CacheToolDescription is get_report's description.
const CacheToolDescription = "Returns the current weather and road report of a city: temperature, wind, precipitation, visibility, roads, warnings and the forecast."

// cacheTurnOf returns the turn of a user message of the workload, or -1.
func cacheTurnOf(s string) int {
	rest, ok := strings.CutPrefix(s, "Turn ")
	if !ok {
		return -1
	}
	n, _, _ := strings.Cut(rest, ":")
	i, err := strconv.Atoi(n)
	if err != nil {
		return -1
	}
	return i - 1
}

// CacheRequest is one request as CacheServer received it.
type CacheRequest struct {
	// Raw holds the JSON of every message and of the tools array, as sent.
	Raw struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    json.RawMessage   `json:"tools"`
	}
	// Req is the request decoded with go-openai's types, for counting.
	Req openai.ChatCompletionRequest
}

// CacheServer is an OpenAI chat completions endpoint on loopback that answers from the
// workload's script — to a request whose latest message is the user's, a get_report call
// for the city of that turn; to one that ends with the tool's result, the turn's answer —
// and records every request.
type CacheServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []CacheRequest
	bad  []string
}

// NewCacheServer starts a CacheServer; Close stops it.
func NewCacheServer() *CacheServer {
	s := &CacheServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the server's base URL, ending in /v1.
func (s *CacheServer) BaseURL() string { return s.URL + "/v1" }

// Requests returns the recorded requests, in order.
func (s *CacheServer) Requests() []CacheRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// Errors returns what the server could not answer: requests without a turn's user message.
func (s *CacheServer) Errors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.bad)
}

func (s *CacheServer) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var cr CacheRequest
	if err == nil {
		err = json.Unmarshal(body, &cr.Raw)
	}
	if err == nil {
		err = json.Unmarshal(body, &cr.Req)
	}
	turn, last := -1, ""
	for _, m := range cr.Req.Messages {
		if m.Role == openai.ChatMessageRoleUser {
			turn = cacheTurnOf(userText(m))
		}
		last = m.Role
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, cr)
	if err != nil || turn < 0 {
		s.bad = append(s.bad, fmt.Sprintf("request %d: %v, no turn's user message", len(s.reqs), err))
	}
	s.mu.Unlock()
	if err != nil || turn < 0 {
		http.Error(w, "bench: no turn's user message", http.StatusBadRequest)
		return
	}
	city := cacheCities[turn%len(cacheCities)]
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
	finish := openai.FinishReasonStop
	if last == openai.ChatMessageRoleTool {
		msg.Content = CacheAnswer(city, turn)
	} else {
		finish = openai.FinishReasonToolCalls
		msg.ToolCalls = []openai.ToolCall{{ID: "call_t" + strconv.Itoa(turn+1), Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: CacheToolName, Arguments: `{"city":"` + city + `"}`}}}
	}
	resp := openai.ChatCompletionResponse{ID: "chatcmpl-" + strconv.Itoa(turn), Object: "chat.completion", Created: 1, Model: cr.Req.Model,
		Choices: []openai.ChatCompletionChoice{{Index: 0, Message: msg, FinishReason: finish}},
		Usage:   openai.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

func userText(m openai.ChatCompletionMessage) string {
	if m.Content != "" {
		return m.Content
	}
	var b strings.Builder
	for _, p := range m.MultiContent {
		b.WriteString(p.Text)
	}
	return b.String()
}

// CacheStats is what a provider's prompt cache makes of a sequence of requests.
type CacheStats struct {
	// Requests is the number of requests.
	Requests int
	// Prompt is the prompt tokens of all requests: the tool definitions and the messages, as
	// memory.Counter counts them for CacheModel.
	Prompt int64
	// Cacheable is the tokens of each request's longest prefix identical to the previous
	// request's, by OpenAI's rule: none below 1,024 tokens, else rounded down to a multiple
	// of 128. The prefix is the tool definitions (OpenAI puts them first), then the
	// messages, compared as the JSON each was sent as; a change in the tools makes it empty.
	Cacheable int64
}

// Share is Cacheable over Prompt.
func (s CacheStats) Share() float64 {
	if s.Prompt == 0 {
		return 0
	}
	return float64(s.Cacheable) / float64(s.Prompt)
}

// CostIndex is the uncached tokens plus a tenth of the cacheable ones: what the prompts cost
// in input tokens at full price, cached tokens billed at 0.1.
func (s CacheStats) CostIndex() float64 {
	return float64(s.Prompt-s.Cacheable) + 0.1*float64(s.Cacheable)
}

// Cache returns the CacheStats of reqs, counted with c.
func Cache(c *memory.Counter, reqs []CacheRequest) CacheStats {
	st := CacheStats{Requests: len(reqs)}
	for i, r := range reqs {
		tools := c.Tools(r.Req.Tools)
		st.Prompt += int64(tools + c.Messages(r.Req.Messages))
		if i == 0 || !bytes.Equal(reqs[i-1].Raw.Tools, r.Raw.Tools) {
			continue
		}
		prev := reqs[i-1].Raw.Messages
		k := 0
		for k < len(prev) && k < len(r.Raw.Messages) && bytes.Equal(prev[k], r.Raw.Messages[k]) {
			k++
		}
		prefix := tools
		if k > 0 {
			prefix += c.Messages(r.Req.Messages[:k]) - 3 // without the 3 tokens that prime the reply
		}
		if prefix >= 1024 {
			st.Cacheable += int64(prefix / 128 * 128)
		}
	}
	return st
}
