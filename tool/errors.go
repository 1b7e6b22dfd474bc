package tool

import (
	"fmt"
	"strings"
)

// Violation is one way a call's arguments broke the tool's schema.
type Violation struct {
	// Path is the JSON pointer of the offending value ("" is the arguments object itself).
	Path string
	// Message says what was expected and what was sent, for the model to read.
	Message string
}

// maxShownViolations bounds the violations an ArgumentError's message lists: a refusal the
// model reads must not cost more context than the arguments it refuses.
const maxShownViolations = 20

// ArgumentError is the error of a call whose arguments were refused before the tool ran:
// unrepairable or unbounded JSON (Kind KindInvalidJSON), or a schema violation, a duplicate
// property, a value the input type cannot hold (KindInvalidArguments).
// Its message is written for the model: each violation with its path (the first 20, then how
// many more), and an instruction to call again with fixed arguments.
type ArgumentError struct {
	// Tool is the name of the tool that refused the arguments.
	Tool string
	// Kind is KindInvalidJSON or KindInvalidArguments.
	Kind Kind
	// Violations lists what is wrong, each at its JSON pointer (KindInvalidArguments).
	Violations []Violation
	// Detail says why the text is not JSON (KindInvalidJSON).
	Detail string
	// Shape is an example of the expected arguments object, derived from the schema.
	Shape string
}

func (e *ArgumentError) Error() string {
	var b strings.Builder
	if e.Kind == KindInvalidJSON {
		b.WriteString("the arguments for tool " + e.Tool + " are not valid JSON")
		if e.Detail != "" {
			b.WriteString(": " + e.Detail)
		}
		b.WriteString(".")
		if e.Shape != "" {
			b.WriteString(" Expected a JSON object like " + e.Shape + ".")
		}
		b.WriteString(" Call the tool again with valid JSON arguments.")
		return b.String()
	}
	b.WriteString("invalid arguments for tool " + e.Tool + ":")
	for i, v := range e.Violations {
		if i == maxShownViolations {
			fmt.Fprintf(&b, "\n- and %d more", len(e.Violations)-i)
			break
		}
		path := v.Path
		if path == "" {
			path = "(arguments)"
		}
		b.WriteString("\n- " + path + ": " + v.Message)
	}
	b.WriteString("\nFix these arguments and call the tool again.")
	return b.String()
}
