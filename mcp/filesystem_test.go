package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/mcp/internal/npmtest"
	"github.com/toolcall/toolcall/tool"
)

// TestFilesystem: server-filesystem over stdio on a temporary directory, with a Prefix,
// through a full agent run: a write (destructive, so sequential), reads, a server error the
// model reads (isError), a path outside the directory refused by the server, an image
// file as a placeholder.
func TestFilesystem(t *testing.T) {
	node := npmtest.Node(t)
	bin := npmtest.Bin(t, "@modelcontextprotocol/server-filesystem", npmtest.FilesystemVersion, "mcp-server-filesystem")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\n-not-really-an-image")
	if err := os.WriteFile(filepath.Join(dir, "logo.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	c := connect(t, nil, mcp.ServerConfig{Name: "fs", Command: node, Args: []string{bin, dir}, Prefix: "fs_"})
	path := func(name string) string { return filepath.Join(dir, name) }
	args := func(kv ...string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	res, model := run(t, c,
		agentkittest.ToolCalls(
			agentkittest.Call("fs_write_file", args("path", path("notes.txt"), "content", "hello 世界\n")),
			agentkittest.Call("fs_read_text_file", args("path", path("missing.txt")))),
		agentkittest.ToolCalls(
			agentkittest.Call("fs_read_file", args("path", path("notes.txt"))),
			agentkittest.Call("fs_read_text_file", args("path", "/etc/passwd")),
			agentkittest.Call("fs_read_media_file", args("path", path("logo.png")))),
		agentkittest.Text("done"))

	got := calls(res)
	want := []string{
		"fs_write_file: Successfully wrote to " + path("notes.txt"),
		"fs_read_file: hello 世界\n",
	}
	if diff := cmp.Diff(want[0], got[0]); diff != "" {
		t.Errorf("write (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[1], got[2]); diff != "" {
		t.Errorf("read (-want +got):\n%s", diff)
	}
	wantContains(t, "the missing file", got[1], "fs_read_text_file: error: tool fs_read_text_file failed:", "ENOENT")
	wantContains(t, "outside the directory", got[3], "error: tool fs_read_text_file failed:", "Access denied")
	wantContains(t, "the image", got[4], "[image: image/png, "+itoa(len(png))+" bytes;")
	if b, err := os.ReadFile(path("notes.txt")); err != nil || string(b) != "hello 世界\n" {
		t.Errorf("the file on disk: %q, %v", b, err)
	}
	rs := results(res)
	if rs[1].Kind != tool.KindToolError || rs[3].Kind != tool.KindToolError {
		t.Errorf("kinds %s, %s; want tool errors", rs[1].Kind, rs[3].Kind)
	}
	type content struct {
		Content string `json:"content"`
	}
	if s, err := mcp.Structured[content](rs[2]); err != nil || s.Content != "hello 世界\n" {
		t.Errorf("Structured = %+v, %v", s, err)
	}
	// The model was offered the prefixed tools; the write is sequential, the reads are not.
	if n := len(model.Requests()[0].Tools); n < 10 {
		t.Errorf("%d tools offered", n)
	}
	write, read := toolNamed(t, c, "fs_write_file"), toolNamed(t, c, "fs_read_text_file")
	if !write.Sequential() || !write.Annotations().IsDestructive() || read.Sequential() || !read.Annotations().ReadOnly {
		t.Errorf("write: sequential %v, %+v; read: sequential %v, %+v", write.Sequential(), write.Annotations(), read.Sequential(), read.Annotations())
	}
}
