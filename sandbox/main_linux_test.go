package sandbox

import (
	"fmt"
	"os"
	"testing"

	"github.com/docket-engine/docket/sandbox/helper"
)

// attackArg makes the test binary run one of the attack programs in
// attacks_test.go instead of the tests.
const attackArg = "__attack"

// TestMain lets the test binary be its own sandbox helper and its own
// attack programs, so the escape suite runs real processes without
// building anything else.
func TestMain(m *testing.M) {
	if helper.IsHelper(os.Args) {
		os.Exit(helper.Main(os.Args))
	}
	if len(os.Args) > 2 && os.Args[1] == attackArg {
		os.Exit(runAttack(os.Args[2], os.Args[3:]))
	}
	os.Exit(m.Run())
}

// testBinary is the path of this test binary, used as helper and attacker.
func testBinary(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("os.Executable: %v", err)
	}
	return exe
}

// attackArgv is the argv that runs attack name with args.
func attackArgv(t testing.TB, name string, args ...string) []string {
	return append([]string{testBinary(t), attackArg, name}, args...)
}

// fail prints why an attack did not work and returns its exit status.
func fail(format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "attack failed: "+format+"\n", a...)
	return 1
}
