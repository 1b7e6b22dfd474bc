package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolcall/toolcall/tool"
)

// A deferred tool has a schema and no function: the application runs it (here, a page
// opened in the user's browser). Handle validates the call and returns it pending; the agent
// loop pauses the run, and the application's result comes back with Resume.
func ExampleDeferred() {
	open := tool.Deferred[struct {
		URL string `json:"url" jsonschema:"format=uri"`
	}]("open_page", "Open a web page in the user's browser.")

	res := open.Handle(context.Background(), tool.Call{ID: "call_1", Name: "open_page", Arguments: `{"url":"https://example.com"}`})
	fmt.Println(res.Kind, errors.Is(res.Err, tool.ErrDeferred), string(res.Value.(json.RawMessage)))
	res = open.Handle(context.Background(), tool.Call{ID: "call_2", Name: "open_page", Arguments: `{}`})
	fmt.Println(res.Kind)
	// Output:
	// pending true {"url":"https://example.com"}
	// invalid_arguments
}
