// Package mcp connects toolcall to the Model Context Protocol, both ways: the tools of any MCP
// server become *tool.Tool values an agent calls like its own, and toolcall's tools (and an
// agent, as one tool) are served to any MCP client.
//
// It is built on github.com/modelcontextprotocol/go-sdk, the official SDK, in a module of its
// own: the SDK brings golang.org/x/oauth2, a JWT library and more, which an application that
// never speaks MCP should not have to build or audit.
package mcp
