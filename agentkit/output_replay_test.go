package agentkit_test

// Replays of the object-generation recordings of ../shared/recordings/field: charmbracelet
// fantasy asking xAI (grok-4-fast, grok-code-fast) and Z.ai (glm-4.7-flash) for a Person and
// a Book through a tool, plain and streamed. The recorded reply calls the tool; replayed
// through an agent whose Output is the same type in tool mode, named as fantasy named the
// tool, the run ends with that value, validated and decoded, after one request — whose tool
// definition has the schema fantasy sent, reflected from the Go type, and no forced
// tool_choice (fantasy forces it; the agent never does).

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/internal/recording"
)

type replayPerson struct {
	Name string `json:"name" jsonschema:"description=The person's name"`
	Age  int    `json:"age" jsonschema:"description=The person's age"`
	City string `json:"city" jsonschema:"description=The city where the person lives"`
}

type replayBook struct {
	Title  string `json:"title" jsonschema:"description=The book title"`
	Author struct {
		Name        string `json:"name" jsonschema:"description=Author's name"`
		Nationality string `json:"nationality" jsonschema:"description=Author's nationality"`
	} `json:"author"`
	Genres        []string `json:"genres" jsonschema:"description=List of genres"`
	PublishedYear int      `json:"published_year" jsonschema:"description=Year the book was published"`
}

func TestReplayObjectGeneration(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(replayDir(t), "field", "fantasy__OpenAICompatObjectGeneration__*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 12 {
		t.Fatalf("%d object-generation recordings, want the 12 of xAI and Z.ai", len(dirs))
	}
	for _, dir := range dirs {
		f, err := recording.LoadField(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range replayClients {
			t.Run(filepath.Base(dir)+"/"+string(c), func(t *testing.T) {
				switch f.Tools[0] {
				case "Person":
					replayObject[replayPerson](t, f, c)
				case "Book":
					replayObject[replayBook](t, f, c)
				default:
					t.Fatalf("recording of an unknown object %v", f.Tools)
				}
			})
		}
	}
}

// recordedTool is the tool definition of a recorded request.
type recordedTool struct {
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters"`
	} `json:"function"`
}

func replayObject[T any](t *testing.T, f *recording.Field, c replayClient) {
	var recorded struct {
		Tools []recordedTool `json:"tools"`
	}
	if err := json.Unmarshal(f.Exchanges[0].Request, &recorded); err != nil || len(recorded.Tools) != 1 {
		t.Fatalf("recorded request: %v, %d tools", err, len(recorded.Tools))
	}
	def := recorded.Tools[0].Function
	var want T // the recorded arguments, decoded by encoding/json
	if err := json.Unmarshal([]byte(f.Expected.ToolCalls[0].Arguments), &want); err != nil {
		t.Fatal(err)
	}

	srv := newReplayServer(t, f.Exchanges[0])
	a := agentkit.New(srv.model(c), &agentkit.Options{Model: "replay",
		Output: agentkit.Output[T](&agentkit.OutputOptions{Name: def.Name, Description: def.Description})})
	var res *agentkit.Result
	var err error
	if f.Exchanges[0].Stream() {
		s := a.RunStream(context.Background(), "replay")
		partials := 0
		for e := range s.Events() {
			if e.Kind == agentkit.EventOutputPartial {
				partials++
			}
		}
		if res, err = s.Result(); partials == 0 {
			t.Error("a streamed object came without EventOutputPartial")
		}
	} else {
		res, err = a.Run(context.Background(), "replay")
	}
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	got, ok := agentkit.ValueOf[T](res)
	if diff := cmp.Diff(want, got); !ok || diff != "" {
		t.Errorf("value (-recorded +got), given %v:\n%s", ok, diff)
	}
	if res.Stop != agentkit.StopAnswered || res.Iterations != 1 {
		t.Errorf("Stop %q after %d requests, want answered after 1", res.Stop, res.Iterations)
	}

	bodies := srv.bodies()
	var sent struct {
		Tools      []recordedTool `json:"tools"`
		ToolChoice any            `json:"tool_choice"`
	}
	if err := json.Unmarshal(bodies[0], &sent); err != nil || len(sent.Tools) != 1 {
		t.Fatalf("sent request: %v, %d tools", err, len(sent.Tools))
	}
	if sent.ToolChoice != nil {
		t.Errorf("tool_choice %v sent: the output tool is never forced", sent.ToolChoice)
	}
	if got := sent.Tools[0].Function; got.Name != def.Name || !sameSchema(got.Parameters, def.Parameters) {
		t.Errorf("sent tool %s %v, recorded %s %v", got.Name, got.Parameters, def.Name, def.Parameters)
	}
}

// sameSchema compares two schemas by what they say: a schema we send may also say
// additionalProperties false, and lists required properties in field order.
func sameSchema(ours, theirs map[string]any) bool {
	return reflect.DeepEqual(normSchema(ours), normSchema(theirs))
}

func normSchema(s map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		switch x := v.(type) {
		case map[string]any:
			v = normSchema(x)
		case []any:
			if k == "required" {
				names := make([]string, len(x))
				for i, n := range x {
					names[i], _ = n.(string)
				}
				slices.Sort(names)
				v = names
			}
		}
		if k != "additionalProperties" {
			out[k] = v
		}
	}
	return out
}
