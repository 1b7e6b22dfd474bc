package memory

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"
	"github.com/tiktoken-go/tokenizer"
)

// Token costs of OpenAI's chat format, from the OpenAI cookbook ("How to count tokens with
// tiktoken"): every message is framed by 3 tokens plus its role, a name costs one more, and
// the reply is primed with 3.
const (
	tokensPerMessage = 3
	tokensPerRole    = 1
	tokensPerName    = 1
	tokensReply      = 3
	// tokensPerToolCall frames each tool call of an assistant message (the "to=functions.name"
	// header of OpenAI's rendering). OpenAI does not publish it: an estimate.
	tokensPerToolCall = 5
	// Images: the cost of a low-detail image, and of a 1024×1024 high-detail one, which
	// stands for every image whose size we do not know.
	tokensImageLow  = 85
	tokensImageHigh = 765
	// OpenAI's billing of function definitions (see Counter.Tools): only the framing of a
	// function differs between the tokenizer generations.
	toolsFuncInitO200k  = 7
	toolsFuncInitCl100k = 10
	toolsPropInit       = 3
	toolsPropKey        = 3
	toolsEnumInit       = -3
	toolsEnumItem       = 3
	toolsFuncEnd        = 12
)

// counterCacheSize bounds the per-message cache: past it, each new count replaces an arbitrary
// one (the map's iteration order picks it). A strategy walks the same messages in the same
// order on every request, and a cache emptied when full would then miss on every one of them
// as soon as they outnumber it (a Budget window on a 10,000-turn session, or many sessions
// sharing a Counter), tokenizing the whole history again per request; replacing at random keeps
// most of them. An entry costs about 36 bytes (4.7 MB when full), next to the messages' own
// hundreds.
const counterCacheSize = 1 << 17

// Counter counts tokens offline, the way OpenAI bills them. Strategies call it before every
// model request, so per-message counts are cached, keyed by a 64-bit hash of everything the
// count depends on (a collision would only skew an estimate).
//
// NewCounter picks the tokenizer by model name. A Counter is safe for concurrent use. The
// zero Counter has no tokenizer: it estimates one token per 4 bytes of text.
type Counter struct {
	codec tokenizer.Codec // nil: bytes/4

	seedOnce sync.Once
	seed     maphash.Seed

	mu    sync.Mutex
	cache map[uint64]int
}

// NewCounter returns a Counter for model, with the tokenizer of its family:
//
//   - o200k_base for gpt-4o, gpt-4.1, gpt-4.5, gpt-5, chatgpt-4o, gpt-oss and the o1, o3 and
//     o4 reasoning models;
//   - cl100k_base for gpt-4, gpt-3.5-turbo and OpenAI's embedding models;
//   - cl100k_base, as an estimate, for any other model (DeepSeek, Qwen, Llama, Mistral, …,
//     and ""). Their tokenizers are BPE vocabularies of 100k–150k tokens — Llama 3's extends
//     cl100k itself — so cl100k is close for English and code, and for Chinese it counts
//     somewhat more tokens than the larger vocabularies of Qwen and DeepSeek do: a budget
//     computed with it errs on the side of sending less. Counting bytes/4 instead would
//     undercount Chinese (three bytes a character, about one token) by a third.
//
// A provider prefix ("openai/gpt-4o") and a fine-tune prefix ("ft:gpt-4o-mini:…") are
// ignored. [Counter.Encoding] says which tokenizer was picked.
func NewCounter(model string) *Counter {
	codec, err := tokenizer.Get(encodingFor(model))
	if err != nil { // cannot happen for the two encodings above; fall back to the estimate
		return &Counter{}
	}
	return &Counter{codec: codec}
}

// encodingFor returns the tokenizer of a model name.
func encodingFor(model string) tokenizer.Encoding {
	m := strings.ToLower(strings.TrimSpace(model))
	m = strings.TrimPrefix(m, "ft:")
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	family := func(names ...string) bool {
		for _, n := range names {
			if m == n || strings.HasPrefix(m, n+"-") || strings.HasPrefix(m, n+":") || strings.HasPrefix(m, n+".") {
				return true
			}
		}
		return false
	}
	if family("gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "gpt-oss", "o1", "o3", "o4") {
		return tokenizer.O200kBase
	}
	return tokenizer.Cl100kBase // gpt-4, gpt-3.5-turbo, the embedding models, and the estimate
}

// Encoding returns the name of the tokenizer: "o200k_base", "cl100k_base", or "bytes/4" for
// the zero Counter.
func (c *Counter) Encoding() string {
	if c.codec == nil {
		return "bytes/4"
	}
	return c.codec.GetName()
}

// Text returns the number of tokens of s.
func (c *Counter) Text(s string) int {
	if s == "" {
		return 0
	}
	if c.codec != nil {
		if n, err := c.codec.Count(s); err == nil {
			return n
		}
	}
	return (len(s) + 3) / 4
}

// Messages returns the tokens msgs cost as the messages of a request: each message with its
// framing, plus the 3 tokens that prime the reply. It is 0 for no messages.
func (c *Counter) Messages(msgs []openai.ChatCompletionMessage) int {
	if len(msgs) == 0 {
		return 0
	}
	return tokensReply + c.sum(msgs)
}

// sum returns the tokens of msgs without the 3 that prime the reply: a part of a request.
func (c *Counter) sum(msgs []openai.ChatCompletionMessage) int {
	n := 0
	for i := range msgs {
		n += c.message(&msgs[i])
	}
	return n
}

// Message returns the tokens one message costs in a request: its framing (3), its role (1),
// its content, name (+1), refusal and reasoning content, each image (85 at low detail, 765
// otherwise: an estimate for an image of unknown size), and each tool call (its name, its
// arguments and 5 for the framing, an estimate: OpenAI does not publish it). The tool_call_id
// of a tool message is not counted: the model is not shown it.
func (c *Counter) Message(m openai.ChatCompletionMessage) int {
	return c.message(&m)
}

func (c *Counter) message(m *openai.ChatCompletionMessage) int {
	if c.codec == nil {
		return c.count(m) // bytes/4: cheaper than the cache's hash
	}
	key := c.key(m)
	c.mu.Lock()
	n, ok := c.cache[key]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = c.count(m)
	c.mu.Lock()
	if c.cache == nil {
		c.cache = make(map[uint64]int, 1024)
	}
	if len(c.cache) >= counterCacheSize {
		for k := range c.cache {
			delete(c.cache, k)
			break
		}
	}
	c.cache[key] = n
	c.mu.Unlock()
	return n
}

// key hashes what the count of m depends on: the texts and the fixed tokens of [parts]. Each
// text is preceded by its length, so that no two sequences of texts hash the same bytes (a
// separator byte would: texts may contain it). The seed is made on first use, so that the
// zero Counter works.
func (c *Counter) key(m *openai.ChatCompletionMessage) uint64 {
	c.seedOnce.Do(func() { c.seed = maphash.MakeSeed() })
	var h maphash.Hash
	h.SetSeed(c.seed)
	var n [binary.MaxVarintLen64]byte
	fixed := parts(m, func(s string) {
		h.Write(binary.AppendUvarint(n[:0], uint64(len(s))))
		h.WriteString(s)
	})
	maphash.WriteComparable(&h, fixed)
	return h.Sum64()
}

func (c *Counter) count(m *openai.ChatCompletionMessage) int {
	text := 0
	fixed := parts(m, func(s string) { text += c.Text(s) })
	return fixed + text
}

// parts passes every text of m that is counted to text, and returns the tokens of the rest:
// the framing, the name's, the images', the tool calls'. The count and the cache key are
// both made from it, so the key always covers what the count depends on.
func parts(m *openai.ChatCompletionMessage, text func(string)) int {
	n := tokensPerMessage + tokensPerRole
	text(m.Content)
	text(m.Refusal)
	text(m.ReasoningContent)
	if m.Name != "" {
		n += tokensPerName
		text(m.Name)
	}
	for _, p := range m.MultiContent {
		switch {
		case p.Type == openai.ChatMessagePartTypeImageURL && p.ImageURL != nil && p.ImageURL.Detail == openai.ImageURLDetailLow:
			n += tokensImageLow
		case p.Type == openai.ChatMessagePartTypeImageURL:
			n += tokensImageHigh
		default:
			text(p.Text)
		}
	}
	for _, tc := range m.ToolCalls {
		n += tokensPerToolCall
		text(tc.Function.Name)
		text(tc.Function.Arguments)
	}
	if m.FunctionCall != nil {
		n += tokensPerToolCall
		text(m.FunctionCall.Name)
		text(m.FunctionCall.Arguments)
	}
	return n
}

// Request returns the prompt tokens of req: its messages and its tool definitions.
func (c *Counter) Request(req openai.ChatCompletionRequest) int {
	return c.Messages(req.Messages) + c.Tools(req.Tools)
}

// Tools returns the tokens the function definitions defs add to a request. It follows the
// OpenAI cookbook's reconstruction of OpenAI's billing ("How to count tokens for function
// calls"): per function, its name and description; per top-level property, its name, type
// and description and its enum values; plus fixed framing. Nested object and array schemas,
// which the cookbook leaves out, are counted as the tokens of their JSON. It is an estimate:
// on the cookbook's example it gives the usage OpenAI reported (101 tokens for gpt-4o, 105
// for gpt-4, see the tests), but OpenAI does not publish its rendering, and other providers
// render tools into the prompt in their own ways.
func (c *Counter) Tools(defs []openai.Tool) int {
	funcInit := toolsFuncInitCl100k
	if c.Encoding() == string(tokenizer.O200kBase) {
		funcInit = toolsFuncInitO200k
	}
	n := 0
	for _, d := range defs {
		if d.Function == nil {
			continue
		}
		f := d.Function
		n += funcInit
		n += c.Text(f.Name + ":" + strings.TrimSuffix(f.Description, "."))
		props := schemaProperties(f.Parameters)
		if len(props) > 0 {
			n += toolsPropInit
		}
		for _, p := range props {
			n += toolsPropKey
			if len(p.enum) > 0 {
				n += toolsEnumInit
				for _, e := range p.enum {
					n += toolsEnumItem + c.Text(e)
				}
			}
			n += c.Text(p.name + ":" + p.typ + ":" + strings.TrimSuffix(p.description, "."))
			n += c.Text(p.nested)
		}
	}
	if n > 0 {
		n += toolsFuncEnd
	}
	return n
}

type schemaProperty struct {
	name, typ, description string
	enum                   []string
	nested                 string // JSON of a nested properties or items schema
}

// schemaProperties decodes the top-level properties of a parameters schema, whatever Go value
// holds it (json.RawMessage, a map, a struct), in the order of the JSON.
func schemaProperties(params any) []schemaProperty {
	if params == nil {
		return nil
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil
	}
	var root struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &root) != nil || len(root.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(root.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []schemaProperty
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		name, _ := t.(string)
		var p struct {
			Type        json.RawMessage `json:"type"`
			Description string          `json:"description"`
			Enum        []any           `json:"enum"`
			Properties  json.RawMessage `json:"properties"`
			Items       json.RawMessage `json:"items"`
		}
		if err := dec.Decode(&p); err != nil {
			return out
		}
		sp := schemaProperty{name: name, description: p.Description}
		if json.Unmarshal(p.Type, &sp.typ) != nil { // a type that is not a string counts as its JSON
			sp.typ = string(p.Type)
		}
		for _, e := range p.Enum {
			if s, ok := e.(string); ok {
				sp.enum = append(sp.enum, s)
			} else {
				b, _ := json.Marshal(e)
				sp.enum = append(sp.enum, string(b))
			}
		}
		sp.nested = string(p.Properties) + string(p.Items)
		out = append(out, sp)
	}
	return out
}
