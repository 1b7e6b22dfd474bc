// Package shared finds, for the tests, the fixtures that live beside the repository in a
// folder named shared (recorded provider traffic, OpenAI's OpenAPI document): they stay
// there, never copied into the repository. Without the folder a test is skipped, with one
// message naming what is missing; under CI (the environment variable CI set, as .ci/run
// does) it fails instead, so that CI never skips silently.
package shared

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the path of shared/<elem...> beside the repository, relative to the test's
// working directory, or skips t (fails it under CI) when it is missing.
func Dir(t testing.TB, elem ...string) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	rel := filepath.Join(append([]string{"shared"}, elem...)...)
	dir := filepath.Join(append([]string{root, ".."}, rel)...)
	_, err = os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg := "the fixtures " + filepath.ToSlash(rel) + " are missing: clone the shared folder beside this repository (as ../shared) to run this test"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	case err != nil:
		t.Fatal(err)
	}
	return dir
}

// repoRoot returns the relative path from the working directory to the repository's root,
// the first folder up that holds go.mod and .git.
func repoRoot() (string, error) {
	dir := "."
	for range 10 {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
				return dir, nil
			}
		}
		dir = filepath.Join(dir, "..")
	}
	return "", errors.New("shared: no repository root (go.mod and .git) above the working directory")
}
