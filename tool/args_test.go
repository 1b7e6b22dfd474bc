package tool

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// repairCases are malformed arguments as models send them, with the object they must decode
// to and a part of the repair description.
var repairCases = []struct {
	name   string
	in     string
	want   string // the expected object, compared as decoded JSON
	repair string // a substring of the repair description
	raw    string // when set, a substring obj must hold byte for byte
}{
	{"missing quote and extra comma", `{"city": "北京, "unit": "c",}`, `{"city": "北京", "unit": "c"}`, "repaired malformed JSON", ""},
	{"extra comma", `{"city": "北京", "unit": "c",}`, `{"city": "北京", "unit": "c"}`, "repaired malformed JSON", ""},
	{"missing quote before brace", `{"city": "Beijing}`, `{"city": "Beijing"}`, "repaired malformed JSON", ""},
	{"missing opening quote", `{"city": 北京", "unit": "c"}`, `{"city": "北京", "unit": "c"}`, "repaired malformed JSON", ""},
	{"fence with prose", "Here are the arguments:\n```json\n{\"city\": \"Beijing\"}\n```\nLet me know!", `{"city": "Beijing"}`, "stripped markdown fence; removed text around the JSON", ""},
	{"fence without language", "```\n{\"a\": 1}\n```", `{"a": 1}`, "stripped markdown fence", ""},
	{"fence not closed", "```json\n{\"a\": 1}", `{"a": 1}`, "stripped markdown fence", ""},
	{"fence around fence", "```json\n{\"md\": \"```go\\nx := 1\\n```\", \"n\": 1,}\n```", "{\"md\": \"```go\\nx := 1\\n```\", \"n\": 1}", "stripped markdown fence; repaired malformed JSON", ""},
	{"single quotes", `{'city': 'Beijing'}`, `{"city": "Beijing"}`, "repaired malformed JSON", ""},
	{"escaped single quote", `{'text': 'it\'s fine'}`, `{"text": "it's fine"}`, "repaired malformed JSON", ""},
	{"unquoted key", `{city: "x"}`, `{"city": "x"}`, "repaired malformed JSON", ""},
	{"unquoted Chinese key", `{城市: "上海", 天数: 3}`, `{"城市": "上海", "天数": 3}`, "repaired malformed JSON", ""},
	{"Python literals", `{"a": True, "b": None, "c": False}`, `{"a": true, "b": null, "c": false}`, "repaired malformed JSON", ""},
	{"undefined", `{"a": undefined}`, `{"a": null}`, "repaired malformed JSON", ""},
	{"trailing comma", `{"a": 1,}`, `{"a": 1}`, "repaired malformed JSON", ""},
	{"leading comma", `{, "a": 1}`, `{"a": 1}`, "repaired malformed JSON", ""},
	{"lone comma", `{"a": 1, "b": [,], "c": {,}}`, `{"a": 1, "b": [], "c": {}}`, "repaired malformed JSON", ""},
	{"missing brace", `{"a": {"b": 1}`, `{"a": {"b": 1}}`, "added missing closing bracket", ""},
	{"missing brace after a closed string", `{"q": "He said \"hi\""`, `{"q": "He said \"hi\""}`, "added missing closing bracket", ""},
	{"missing brackets after a closed string", `{"a": [{"b": "x"`, `{"a": [{"b": "x"}]}`, "added missing closing bracket", ""},
	{"missing bracket", `{"a": [1, 2}`, `{"a": [1, 2]}`, "repaired malformed JSON", ""},
	{"extra brace", `{"a": {"b": 1}}}`, `{"a": {"b": 1}}`, "removed extra closing bracket", ""},
	{"missing comma", `{"a": 1 "b": [1 2]}`, `{"a": 1, "b": [1, 2]}`, "repaired malformed JSON", ""},
	{"missing colon", `{"a" 1}`, `{"a": 1}`, "repaired malformed JSON", ""},
	{"leading prose", `Here are the arguments: {"city": "Paris"}`, `{"city": "Paris"}`, "removed text around the JSON", ""},
	{"trailing prose", "{\"city\": \"Paris\"}\n\nI chose Paris because it is the capital.", `{"city": "Paris"}`, "removed text around the JSON", ""},
	{"JSONP", `get_weather({"city": "Paris"});`, `{"city": "Paris"}`, "removed text around the JSON", ""},
	{"backticks", "`{\"a\": 1}`", `{"a": 1}`, "removed text around the JSON", ""},
	{"single quotes around", `'{"a": 1}'`, `{"a": 1}`, "removed text around the JSON", ""},
	{"BOM", "\uFEFF{\"a\": 1}", `{"a": 1}`, "removed byte order mark", ""},
	{"unusual whitespace", "\u00a0{\"a\": 1}\u3000", `{"a": 1}`, "trimmed unusual whitespace", ""},
	{"double-encoded", `"{\"city\": \"x\"}"`, `{"city": "x"}`, "decoded arguments encoded twice", ""},
	{"double-encoded and malformed", `"{'city': 'x',}"`, `{"city": "x"}`, "decoded arguments encoded twice as a JSON string; repaired malformed JSON", ""},
	{"double-encoded empty", `""`, `{}`, "encoded twice", ""},
	{"smart quotes", `{“city”: “Beijing”}`, `{"city": "Beijing"}`, "repaired malformed JSON", ""},
	{"smart quotes inside a string", `{'城市': '北京', '备注': '靠近“天安门”',}`, `{"城市": "北京", "备注": "靠近“天安门”"}`, "repaired malformed JSON", ""},
	{"comments", "{\"a\": 1, // the count\n \"b\": 2 /* more */}", `{"a": 1, "b": 2}`, "repaired malformed JSON", ""},
	{"comment after the object", `{"a": 1} // done`, `{"a": 1}`, "removed comments", ""},
	{"raw newline in string", "{\"text\": \"line1\nline2\"}", `{"text": "line1\nline2"}`, "repaired malformed JSON", ""},
	{"inner quotes", `{"q": "say "hi" to her", "n": 1}`, `{"q": "say \"hi\" to her", "n": 1}`, "repaired malformed JSON", ""},
	{"bare value", `{"unit": celsius}`, `{"unit": "celsius"}`, "repaired malformed JSON", ""},
	{"escaped unicode kept", `{'name': "\u5317\u4eac"}`, `{"name": "北京"}`, "repaired malformed JSON", `\u5317\u4eac`},
	{"numbers", `{"n": 1e3, "m": -2.5, "k": -0, "e": 1E-7, "big": 12345678901234567890,}`, `{"n": 1e3, "m": -2.5, "k": -0, "e": 1E-7, "big": 12345678901234567890}`, "repaired malformed JSON", `1e3, "m": -2.5`},
	{"nested arrays of objects", `{"items": [{"id": 1, "tags": ['a', 'b']}, {"id": 2, "tags": [],},],}`, `{"items": [{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": []}]}`, "repaired malformed JSON", ""},
	{"Windows path", `{"path": "C:\Users\me\file.txt"}`, `{"path": "C:\\Users\\me\\file.txt"}`, "repaired malformed JSON", ""},
	{"stray backslashes", `{\"city\": \"Paris\"}`, `{"city": "Paris"}`, "repaired malformed JSON", ""},
	{"leading zeros", `{"zip": 007}`, `{"zip": "007"}`, "repaired malformed JSON", ""},
	{"regular expression", `{"pattern": /ab+c/}`, `{"pattern": "/ab+c/"}`, "repaired malformed JSON", ""},
	{"several repairs", "Sure!\n```json\n{\n  city: 'Beijing', // the capital\n  days: 3,\n  metric: True,\n}\n```", `{"city": "Beijing", "days": 3, "metric": true}`, "stripped markdown fence; removed text around the JSON; repaired malformed JSON", ""},
}

// refuseCases are arguments that must not be repaired, with a part of the error message.
var refuseCases = []struct {
	name string
	in   string
	err  string
}{
	{"array", `[1,2]`, "expected one JSON object, got an array"},
	{"array of one object", `[{"a": 1}]`, "expected one JSON object, got an array"},
	{"string", `"just a string"`, "expected one JSON object, got a string"},
	{"string holding an array", `"[1, 2]"`, "expected one JSON object, got a string"},
	{"number", `42`, "expected one JSON object, got a number"},
	{"boolean", `true`, "expected one JSON object, got a boolean"},
	{"two objects", `{"a":1}{"b":2}`, "expected one JSON object, found another value at byte 7"},
	{"two objects, one a line", "{\"a\":1}\n{\"b\":2}", "found another value at byte 8"},
	{"two objects in prose", `{"a": 1} and also {"b": 2}`, "found another value at byte 18"},
	{"prose", "I could not find the weather for that city.", "expected one JSON object, got text with no JSON object in it"},
	{"cut in a key", `{"city": "Paris", "un`, "unexpected end of input inside a string at byte 21"},
	{"cut in the first key", `{"ci`, "unexpected end of input inside a string"},
	{"cut after a colon", `{"city":`, "an object key has no value"},
	{"cut after a key", `{"city"`, "an object key has no value"},
	{"missing value", `{"a": , "b": 1}`, "an object key has no value"},
	{"cut in a value", `{"text": "Once upon a time`, "unexpected end of input inside a string at byte 26: the arguments look cut off"},
	{"cut in an escape", `{"text": "x\u12`, "unexpected end of input inside a string"},
	{"cut in a single-quoted value", `{'text': 'Once`, "unexpected end of input inside a string"},
	{"empty string cut", `{"text": "`, "unexpected end of input inside a string"},
	{"cut after a comma", `{"ids": [1, 2,`, "unexpected end of input after a comma at byte 14: the arguments look cut off"},
	{"cut after a comma in an object", `{"a": 1, `, "unexpected end of input after a comma"},
	{"cut in a literal", `{"ok": tr`, "unexpected end of input after an unquoted value at byte 9"},
	{"cut in an unquoted value", `{city: Beij`, "unexpected end of input after an unquoted value"},
	{"cut, repairer path", `{"zip": 007, "city": Beij`, "unexpected end of input after an unquoted value at byte 25"},
	{"cut after a comma, repairer path", `{"zip": 007, "ids": [1,`, "unexpected end of input after a comma"},
	{"ellipsis in an array", `{"ids": [1, 2, ...]}`, `"..." in place of values`},
	{"ellipsis in an object", `{"a": 1, ...}`, `"..." in place of values`},
	{"concatenation", `{"a": "x" + "y"}`, `cannot repair the arguments without changing them: "xy" is not in the text sent`},
	{"function call", `{"n": NumberLong(2)}`, "function call (NumberLong(…)"},
	{"function call in a bare value", `{"q": hello (world)}`, "function call (hello(…)"},
	{"invented number", `{"n": 2.}`, "the number 2.0 is not in the text sent"},
	{"dropped backslash", `{"a": "x\qy"}`, `"xqy" is not in the text sent`},
	{"deep nesting", `{"a":` + strings.Repeat("[", 100), "arguments nest deeper than 64 levels"},
	{"quote in the middle", `{"text": "He said "yes", then left", "b": 1}`, "expected ':' after an object key"},
	{"invalid UTF-8", "{\"a\": \"\xff\",", "arguments are not valid UTF-8 text (byte 7)"},
	{"invalid unicode escape", `{"a": "\u12G4"}`, `invalid \u escape in a string`},
	{"object in key position", `{{"a": 1}}`, "unexpected character '{' at byte 1"},
	{"null and more", `null null`, "got null followed by more text"},
	{"empty fence", "```json\n```", "expected one JSON object, got an empty code block"},
	{"fence of nothing", "```aaaa", "got an empty code block"},
	{"cut after a number", `{"to":"bob","amount": 10`, "unexpected end of input after an unquoted value at byte 24: the arguments look cut off"},
	{"cut after a number in an array", `{"a": [{"b": 12`, "unexpected end of input after an unquoted value"},
	{"cut after a literal", `{"ok": true`, "unexpected end of input after an unquoted value"},
	{"cut after null", `{"a": null`, "unexpected end of input after an unquoted value"},
	{"cut in a number", `{"a": 1.5e`, "unexpected end of input after an unquoted value"},
	{"cut after an opening bracket", `{"ids": [`, "unexpected end of input after an opening bracket at byte 9"},
	{"doubled comma: a value may be missing", `{"a": 1,, "b": 2}`, "expected an object key at byte 8"},
	{"doubled comma in an array", `{"a": [1,,],}`, "unexpected character ',' at byte 11"},
	{"apostrophe in single quotes", `{'text': 'it's fine', 'n': 1}`, `"it\"s fine" is not in the text sent`},
	{"inner quote after a comma", `{"q": "He said, "yes" loudly"}`, "expected ':' after an object key at byte 29"},
	{"large malformed text", `{"zip": 007, "pad": "` + strings.Repeat("x", 9000) + `"}`, "the arguments are 9023 bytes of malformed JSON, over the 8192 bytes that can be repaired safely: send valid JSON"},
}

func TestDecodeArgumentsRepairs(t *testing.T) {
	for _, tc := range repairCases {
		t.Run(tc.name, func(t *testing.T) {
			obj, repair, err := DecodeArguments(tc.in, 0)
			if err != nil {
				t.Fatalf("DecodeArguments(%q) error: %v", tc.in, err)
			}
			if diff := cmp.Diff(decode(t, tc.want), decode(t, string(obj))); diff != "" {
				t.Errorf("DecodeArguments(%q) = %s, want %s (-want +got):\n%s", tc.in, obj, tc.want, diff)
			}
			if !strings.Contains(repair, tc.repair) {
				t.Errorf("DecodeArguments(%q) repair = %q, want it to contain %q", tc.in, repair, tc.repair)
			}
			if tc.raw != "" && !strings.Contains(string(obj), tc.raw) {
				t.Errorf("DecodeArguments(%q) = %s, want it to hold %s as written", tc.in, obj, tc.raw)
			}
			again, repair2, err := DecodeArguments(string(obj), 0)
			if err != nil || string(again) != string(obj) || repair2 != "" {
				t.Errorf("DecodeArguments(%s) = %s, %q, %v; want the same object, no repair, no error", obj, again, repair2, err)
			}
		})
	}
}

func TestDecodeArgumentsRefusals(t *testing.T) {
	for _, tc := range refuseCases {
		t.Run(tc.name, func(t *testing.T) {
			obj, repair, err := DecodeArguments(tc.in, 0)
			if err == nil {
				t.Fatalf("DecodeArguments(%q) = %s, %q; want an error containing %q", tc.in, obj, repair, tc.err)
			}
			if got := err.Error(); !strings.Contains(got, tc.err) {
				t.Errorf("DecodeArguments(%q) error = %q, want it to contain %q", tc.in, got, tc.err)
			}
			if obj != nil || repair != "" {
				t.Errorf("DecodeArguments(%q) = %q, %q with an error; want nil, empty", tc.in, obj, repair)
			}
		})
	}
}

func TestDecodeArgumentsValidIsUntouched(t *testing.T) {
	for _, in := range []string{
		`{}`,
		`{"city":"北京","days":3}`,
		"  \n{\"a\": [1, 2, {\"b\": null}], \"c\": \"\\u5317\"}\t\r\n",
		`{"n": 1e3, "m": -2.5E-3, "t": true, "f": false}`,
		`{"a": {"a": {"a": {"a": {"a": {}}}}}}`,
		`{"dup": 1, "dup": 2}`,
	} {
		obj, repair, err := DecodeArguments(in, 0)
		want := strings.Trim(in, " \t\r\n")
		if err != nil || string(obj) != want || repair != "" {
			t.Errorf("DecodeArguments(%q) = %s, %q, %v; want %s, no repair, no error", in, obj, repair, err, want)
		}
	}
}

func TestDecodeArgumentsNoArguments(t *testing.T) {
	for _, in := range []string{"", " ", "\n\t\r ", "null", " null\n"} {
		obj, repair, err := DecodeArguments(in, 0)
		if err != nil || string(obj) != "{}" || repair != "" {
			t.Errorf("DecodeArguments(%q) = %s, %q, %v; want {}, no repair, no error", in, obj, repair, err)
		}
	}
}

func TestDecodeArgumentsLimit(t *testing.T) {
	pad := strings.Repeat("x", 70000-len(`{"a":""}`))
	over := `{"a":"` + pad + `"}`
	tests := []struct {
		in    string
		limit int
		err   string
	}{
		{over, 0, "arguments are 70000 bytes, over the 65536-byte limit"},
		{over, -1, "arguments are 70000 bytes, over the 65536-byte limit"},
		{`{"a": 1}`, 7, "arguments are 8 bytes, over the 7-byte limit"},
		{`{"a": 1}`, 8, ""},
		{`{'a': 1}`, 8, ""},
		{over, 70000, ""},
		{"\n" + `{'a': 1, }`, 10, "arguments are 11 bytes, over the 10-byte limit"},
	}
	for _, tc := range tests {
		_, _, err := DecodeArguments(tc.in, tc.limit)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.err {
			t.Errorf("DecodeArguments(%d bytes, %d) error = %q, want %q", len(tc.in), tc.limit, got, tc.err)
		}
	}
	if DefaultArgumentLimit != 65536 {
		t.Errorf("DefaultArgumentLimit = %d, want 65536", DefaultArgumentLimit)
	}
}

func TestDecodeArgumentsValidAllocs(t *testing.T) {
	in := `{"city": "Beijing", "unit": "celsius", "days": 3}`
	if n := testing.AllocsPerRun(100, func() { _, _, _ = DecodeArguments(in, 0) }); n > 1 {
		t.Errorf("DecodeArguments of a valid object: %v allocations, want at most 1", n)
	}
}

// TestDecodeArgumentsBounded feeds 64 KiB of text built to make a repairer slow: quadratic
// copying per comma or quote, or deep recursion.
func TestDecodeArgumentsBounded(t *testing.T) {
	for name, in := range pathological() {
		start := time.Now()
		obj, _, err := DecodeArguments(in, 0)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("DecodeArguments(%s, %d bytes) took %v, want well under 2s", name, len(in), d)
		}
		if err == nil && !json.Valid(obj) {
			t.Errorf("DecodeArguments(%s) = invalid JSON %.40q", name, obj)
		}
	}
}

// pathological returns inputs of 64 KiB that are slow to repair naively.
func pathological() map[string]string {
	fill := func(prefix, unit, suffix string) string {
		var b strings.Builder
		b.WriteString(prefix)
		for b.Len()+len(unit)+len(suffix) <= DefaultArgumentLimit {
			b.WriteString(unit)
		}
		b.WriteString(suffix)
		return b.String()
	}
	return map[string]string{
		"deep arrays":         fill(`{"a":`, "[", ""),
		"deep objects":        fill("", "{a:", ""),
		"many keys":           fill("{", `"k":1,`, "}"),
		"many keys, cut":      fill("{", `"k":1,`, ""),
		"missing commas":      fill(`{"a":[`, "1 ", "]}"),
		"objects no commas":   fill(`{"a":[`, "{}", "]}"),
		"quotes":              fill(`{"a":"`, `x"`, `"}`),
		"only quotes":         fill(`{"a":`, `"`, "}"),
		"single quotes":       fill(`{'a':'`, `x'`, `'}`),
		"open strings":        fill(`{"a":[`, "\"x,\n", "]}"),
		"quote commas":        fill(`{"a":[`, `"x, `, "]}"),
		"unquoted keys":       fill("{", "k:1,", "}"),
		"escaped paths":       fill(`{"a":[`, `"C:\\x",`, "]}"),
		"control characters":  fill(`{"a":"`, "x\n", `"}`),
		"concatenation":       fill(`{"a":"x"`, `+"x"`, "}"),
		"newline objects":     fill(`{"a":1}`, "\n{\"a\":1}", ""),
		"comments":            fill(`{"a":1`, "/**/", "}"),
		"smart quotes":        fill(`{"a":“`, "x“", "”}"),
		"repairer, many keys": fill(`{"z": 007,`, `"k":1,`, "}"),
		"repairer, objects":   fill(`{"z": 007, "a": [`, "{}", "]}"),
	}
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("json.Unmarshal(%q): %v", s, err)
	}
	return v
}

// bigMalformed returns about size bytes of arguments in a fence, with single quotes,
// unquoted keys, trailing commas and Python literals: n objects.
func bigMalformed(size int) (text string, n int) {
	var b strings.Builder
	b.WriteString("```json\n{\n")
	for ; b.Len() < size; n++ {
		fmt.Fprintf(&b, "  item_%d: {'name': 'item %d', \"tags\": [\"a\", \"b\",], \"on\": True, \"n\": %d,},\n", n, n, n)
	}
	b.WriteString("}\n```")
	return b.String(), n
}

// TestDecodeArgumentsLargeRepair: malformed text is repaired up to 8 KiB, and refused past
// that, however it is wrapped.
func TestDecodeArgumentsLargeRepair(t *testing.T) {
	in, n := bigMalformed(7 << 10)
	obj, repair, err := DecodeArguments(in, 0)
	if err != nil {
		t.Fatalf("DecodeArguments(%d bytes) error: %v", len(in), err)
	}
	var got map[string]struct {
		Name string
		Tags []string
		On   bool
		N    int
	}
	if err := json.Unmarshal(obj, &got); err != nil {
		t.Fatalf("DecodeArguments(%d bytes) = %.60s…: %v", len(in), obj, err)
	}
	if len(got) != n || got["item_7"].Name != "item 7" || got["item_7"].N != 7 || !got["item_7"].On || len(got["item_7"].Tags) != 2 {
		t.Errorf("DecodeArguments(%d bytes) = %d items, item_7 %+v; want %d items, item_7 {item 7 [a b] true 7}", len(in), len(got), got["item_7"], n)
	}
	if want := "stripped markdown fence; repaired malformed JSON"; repair != want {
		t.Errorf("DecodeArguments(%d bytes) repair = %q, want %q", len(in), repair, want)
	}
	in, _ = bigMalformed(30 << 10)
	_, _, err = DecodeArguments(in, 0)
	if want := "over the 8192 bytes that can be repaired safely: send valid JSON"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("DecodeArguments(%d bytes) error = %v, want it to contain %q", len(in), err, want)
	}
}

func BenchmarkDecodeArguments(b *testing.B) {
	big, _ := bigMalformed(7 << 10)
	for _, bc := range []struct{ name, in string }{
		{"valid_small", `{"city": "Beijing", "unit": "celsius", "days": 3}`},
		{"repaired_small", "```json\n{'city': 'Beijing', unit: \"celsius\", \"days\": 3, \"metric\": True,}\n```"},
		{"repaired_7KB", big},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if _, _, err := DecodeArguments(bc.in, 0); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(bc.in)))
			b.ReportAllocs()
			for b.Loop() {
				_, _, _ = DecodeArguments(bc.in, 0)
			}
		})
	}
}
