// Package handwritten is the floor of the benchmarks: the seed article's run_agent loop
// written by hand on go-openai (json.Unmarshal into a map, a map of functions, calls one after
// the other, no validation, no repair), with its tool definitions written once as JSON
// Schemas. Every framework's figures are read as a ratio to it.
//
// It is in the script module so that the bench module (toolcall and most peers) and the
// bench/adk module (adk-go, which cannot be built with toolcall) measure against the same
// floor. [NewModel] is also toolcall's model: go-openai's client, or the scripted model behind
// go-openai's types in process.
package handwritten
