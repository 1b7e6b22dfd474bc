package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// BlobStore keeps large tool results out of a workflow's history (Options.Blobs).
//
// Put must be safe to repeat: an activity retried, or run again after its worker died,
// puts the same bytes again, and may get the same key or another one that also works.
// Get returns the bytes put under key. Both are called from activities, concurrently.
type BlobStore interface {
	// Put stores b and returns its key: at most 200 bytes of printable ASCII.
	Put(ctx context.Context, b []byte) (key string, err error)
	// Get returns the bytes stored under key, or an error when there are none.
	Get(ctx context.Context, key string) ([]byte, error)
}

// DirBlobs is a BlobStore of files in a directory, named by the SHA-256 of their content:
// for tests, examples, and workers that share a file system. The zero value is not usable:
// it must name a directory, which Put creates when missing.
type DirBlobs string

// Put writes b to a file named by its SHA-256, and returns that name.
func (d DirBlobs) Put(_ context.Context, b []byte) (string, error) {
	sum := sha256.Sum256(b)
	key := hex.EncodeToString(sum[:])
	if err := os.MkdirAll(string(d), 0o755); err != nil {
		return "", fmt.Errorf("temporal: blob store: %w", err)
	}
	tmp, err := os.CreateTemp(string(d), key+".*")
	if err != nil {
		return "", fmt.Errorf("temporal: blob store: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(string(d), key)) // whole or not at all
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("temporal: blob store: %w", err)
	}
	return key, nil
}

// Get reads the file named key.
func (d DirBlobs) Get(_ context.Context, key string) ([]byte, error) {
	if len(key) != sha256.Size*2 || strings.Trim(key, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("temporal: blob store: %q is not a key of this store", key)
	}
	b, err := os.ReadFile(filepath.Join(string(d), key))
	if err != nil {
		return nil, fmt.Errorf("temporal: blob store: %w", err)
	}
	return b, nil
}

// BlobPrefix begins the content of a tool message whose result is kept in Options.Blobs:
// the rest is the key. A result that itself begins with BlobPrefix is kept there too, however
// small, so that a reference is never mistaken for a result or the reverse.
const BlobPrefix = "toolcall-blob:"

// Temporal's default limit on one payload, and the part of it the transcript may take inline:
// the transcript is the input of every model activity, of a continue-as-new and the Result.
const (
	payloadLimit     = 2 << 20
	transcriptBudget = payloadLimit * 3 / 4
	minRoom          = 1 << 10 // a result this small stays inline: a reference would not be smaller
)

// encodedLen returns the size v takes in a payload (JSON, as Temporal's default data converter
// encodes it): a transcript, a message or a result's content. Deterministic: the workflow
// calls it.
func encodedLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return payloadLimit // never for a transcript or a string
	}
	return len(b)
}

// keep returns content, or a reference to it in the store when it is larger than the
// threshold or than room (the bytes of the transcript's budget left to this call's result), or
// looks like a reference.
func (a *Agent) keep(ctx context.Context, content string, room int) (string, error) {
	inline := len(content) <= a.opts.BlobThreshold && !strings.HasPrefix(content, BlobPrefix) &&
		(len(content) <= minRoom || encodedLen(content) <= room)
	if a.opts.Blobs == nil || inline {
		return content, nil
	}
	key, err := a.opts.Blobs.Put(ctx, []byte(content))
	if err != nil {
		return "", err
	}
	return BlobPrefix + key, nil
}

// Resolve returns msgs with the tool results kept in blobs by reference replaced by their
// content: what the model reads. msgs is not modified. A nil blobs returns msgs.
func Resolve(ctx context.Context, blobs BlobStore, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
	if blobs == nil {
		return msgs, nil
	}
	var out []openai.ChatCompletionMessage
	for i, m := range msgs {
		key, ok := strings.CutPrefix(m.Content, BlobPrefix)
		if m.Role != openai.ChatMessageRoleTool || !ok {
			continue
		}
		b, err := blobs.Get(ctx, key)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		out[i].Content = string(b)
	}
	if out == nil {
		return msgs, nil
	}
	return out, nil
}
