package redis_test

import (
	"fmt"
	"os"
)

// childEnv names the part a child process of a test plays (see runChild).
const childEnv = "REDIS_STORE_TEST_CHILD"

func runChild(mode string) int {
	fmt.Fprintln(os.Stderr, "unknown child mode", mode)
	return 2
}
