package trace

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// node is an element of a parsed page. The page is parsed with encoding/xml in its HTML mode
// (not strict, HTML's void elements closed, HTML's entities known): the SDK's module has no
// HTML parser, and the page is written so that one that reads XML reads it whole (no "<" or
// "&" in its style and script). The browser test reads it with Chromium's own.
type node struct {
	tag      string
	attr     map[string]string
	children []*node
	text     strings.Builder // the text directly inside the element
}

// parse parses a page, failing the test when it is not well formed.
func parse(t *testing.T, page string) *node {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	root := &node{tag: "#document"}
	stack := []*node{root}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the page does not parse: %v", err)
		}
		top := stack[len(stack)-1]
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{tag: strings.ToLower(tok.Name.Local), attr: map[string]string{}}
			for _, a := range tok.Attr {
				n.attr[strings.ToLower(a.Name.Local)] = a.Value
			}
			top.children = append(top.children, n)
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) == 1 || stack[len(stack)-1].tag != strings.ToLower(tok.Name.Local) {
				t.Fatalf("the page closes <%s> inside <%s>", tok.Name.Local, top.tag)
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			top.text.Write(tok)
		}
	}
	if len(stack) != 1 {
		t.Fatalf("the page leaves <%s> open", stack[len(stack)-1].tag)
	}
	return root
}

// all returns the elements under n (n included) for which keep is true, in document order.
func (n *node) all(keep func(*node) bool) []*node {
	var out []*node
	if keep(n) {
		out = append(out, n)
	}
	for _, c := range n.children {
		out = append(out, c.all(keep)...)
	}
	return out
}

// textContent is all the text under n, like the DOM's.
func (n *node) textContent() string {
	var b strings.Builder
	b.WriteString(n.text.String())
	for _, c := range n.children {
		b.WriteString(c.textContent())
	}
	return b.String()
}

// hasClass reports whether n's class attribute holds c.
func (n *node) hasClass(c string) bool {
	for _, f := range strings.Fields(n.attr["class"]) {
		if f == c {
			return true
		}
	}
	return false
}

func tagged(tag string) func(*node) bool { return func(n *node) bool { return n.tag == tag } }

func classed(tag, class string) func(*node) bool {
	return func(n *node) bool { return n.tag == tag && n.hasClass(class) }
}
