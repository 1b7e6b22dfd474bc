package mcp

import (
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/toolcall/toolcall/agentkit"
)
