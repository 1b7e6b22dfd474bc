package openaichat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/toolcall/toolcall/agentkit"
)

// extrasAcc merges the provider extras of a stream's chunks (choice 0, as the Assembler
// builds one message) into the message's extras:
//
//   - "reasoning" is text sent in fragments: concatenated;
//   - "reasoning_details" is a list whose entries come in fragments that share an "index"
//     and a "type": their "text" and "summary" are concatenated, any other field keeps its
//     last value (a signature, sent once at the end of its entry). A fragment of another
//     type under the same index begins an entry (xAI through OpenRouter streams a summary
//     and then its encrypted reasoning, both at index 0); so does a fragment without an
//     index;
//   - any other kept field keeps its last value;
//   - a tool call's fields, by the call's stream index (or id, for providers that send no
//     index), in the order the calls began — the Assembler's order.
type extrasAcc struct {
	c       *Client
	fields  map[string]bool
	msg     map[string]json.RawMessage
	details []map[string]json.RawMessage
	detail  map[string]int // reasoning_details index and type → position in details
	calls   map[string]map[string]json.RawMessage
	order   []string // call keys in the order the calls began
	last    string   // key of the latest call fragment
}

// add merges the extras of one chunk's payload.
func (a *extrasAcc) add(data []byte) error {
	if !a.mayHold(data) {
		return nil
	}
	var c struct {
		Choices []struct {
			Index int                        `json:"index"`
			Delta map[string]json.RawMessage `json:"delta"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("openaichat: a stream chunk: %w", err)
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		for k, v := range ch.Delta {
			if !a.fields[k] || string(v) == "null" {
				continue
			}
			if err := a.addField(k, v); err != nil {
				return fmt.Errorf("openaichat: a stream chunk: %s: %w", k, err)
			}
		}
		if tc, ok := ch.Delta["tool_calls"]; ok {
			if err := a.addCalls(tc); err != nil {
				return fmt.Errorf("openaichat: a stream chunk: tool_calls: %w", err)
			}
		}
	}
	return nil
}

// mayHold reports whether a payload may hold extras: it has tool calls or names a kept field.
func (a *extrasAcc) mayHold(data []byte) bool {
	return bytes.Contains(data, []byte(`"tool_calls"`)) || a.c.names(data)
}

func (a *extrasAcc) addField(k string, v json.RawMessage) error {
	if a.msg == nil {
		a.msg = map[string]json.RawMessage{}
	}
	switch k {
	case "reasoning":
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			a.msg[k] = v // not text: kept as it is
			return nil
		}
		var prev string
		_ = json.Unmarshal(a.msg[k], &prev)
		a.msg[k], _ = json.Marshal(prev + s)
	case "reasoning_details":
		var entries []map[string]json.RawMessage
		if err := json.Unmarshal(v, &entries); err != nil {
			return err
		}
		for _, e := range entries {
			a.addDetail(e)
		}
		a.msg[k] = nil // built at the end
	default:
		a.msg[k] = v
	}
	return nil
}

func (a *extrasAcc) addDetail(e map[string]json.RawMessage) {
	var idx int
	if err := json.Unmarshal(e["index"], &idx); err != nil {
		a.details = append(a.details, e)
		return
	}
	if a.detail == nil {
		a.detail = map[string]int{}
	}
	key := strconv.Itoa(idx) + " " + string(e["type"])
	pos, ok := a.detail[key]
	if !ok {
		a.detail[key] = len(a.details)
		a.details = append(a.details, e)
		return
	}
	d := a.details[pos]
	for k, v := range e {
		if string(v) == "null" {
			continue
		}
		var frag, prev string
		if (k == "text" || k == "summary") && json.Unmarshal(v, &frag) == nil && json.Unmarshal(d[k], &prev) == nil {
			d[k], _ = json.Marshal(prev + frag)
			continue
		}
		d[k] = v
	}
}

func (a *extrasAcc) addCalls(raw json.RawMessage) error {
	var calls []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &calls); err != nil {
		return err
	}
	for _, call := range calls {
		key := a.last
		var idx int
		var id string
		switch {
		case json.Unmarshal(call["index"], &idx) == nil:
			key = "index:" + strconv.Itoa(idx)
		case json.Unmarshal(call["id"], &id) == nil && id != "":
			key = "id:" + id
		}
		if a.calls == nil {
			a.calls = map[string]map[string]json.RawMessage{}
		}
		if _, ok := a.calls[key]; !ok {
			a.calls[key] = nil
			a.order = append(a.order, key)
		}
		a.last = key
		for k, v := range call {
			if a.fields[k] && string(v) != "null" {
				if a.calls[key] == nil {
					a.calls[key] = map[string]json.RawMessage{}
				}
				a.calls[key][k] = v
			}
		}
	}
	return nil
}

// result returns the merged extras, and whether there are any.
func (a *extrasAcc) result() (agentkit.ProviderExtras, bool) {
	var e agentkit.ProviderExtras
	if len(a.msg) > 0 {
		e.Message = a.msg
		if _, ok := a.msg["reasoning_details"]; ok {
			a.msg["reasoning_details"], _ = json.Marshal(a.details)
		}
	}
	for i, key := range a.order {
		if x := a.calls[key]; x != nil {
			if e.ToolCalls == nil {
				e.ToolCalls = make([]map[string]json.RawMessage, len(a.order))
			}
			e.ToolCalls[i] = x
		}
	}
	return e, len(e.Message) > 0 || len(e.ToolCalls) > 0
}
