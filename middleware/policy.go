package middleware

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolcall/toolcall/tool"
)

// refuse is the KindDenied result of a call a policy refused; reason says why, for the model.
func refuse(call tool.Call, reason string) tool.Result {
	return tool.Result{
		Kind:    tool.KindDenied,
		Err:     fmt.Errorf("middleware: call to %s denied: %s", call.Name, reason),
		Content: "error: the call to " + call.Name + " was refused: " + reason,
	}
}

// validated returns the call's arguments, repaired and validated by call.Tool.Arguments, or
// the result tool.Handle would give for arguments it refuses: policies and approval look at
// arguments only once they are what the tool would run with. call.Tool must be non-nil.
func validated(call tool.Call) (json.RawMessage, *tool.Result) {
	args, repair, err := call.Tool.Arguments(call.Arguments)
	if err == nil {
		return args, nil
	}
	kind := tool.KindInvalidArguments
	var ae *tool.ArgumentError
	if errors.As(err, &ae) {
		kind = ae.Kind
	}
	return nil, &tool.Result{Kind: kind, Err: err, Content: err.Error(), Repair: repair}
}
