package enginetest_test

import (
	"errors"
	"os"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/enginetest"
	"github.com/docket-engine/docket/sandbox"
)

// TestMain lets the test binary serve as the sandbox helper, as docket does.
func TestMain(m *testing.M) {
	if code, ok := engine.Helper(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// The twin and the real runner keep the same contract.
func TestFakeRunnerKeepsTheRunnerContract(t *testing.T) {
	enginetest.CheckRunner(t, enginetest.RunnersUnderTest{
		Refusing: func(*testing.T) engine.Runner {
			return &enginetest.FakeRunner{Unavailable: errors.New("no landlock here")}
		},
		Working: func(*testing.T) engine.Runner { return &enginetest.FakeRunner{} },
	})
}

func TestProcessRunnerKeepsTheRunnerContract(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.CheckRunner(t, enginetest.RunnersUnderTest{
		// No capabilities at all: what a machine without Landlock or
		// seccomp offers.
		Refusing: func(*testing.T) engine.Runner {
			return &engine.ProcessRunner{HelperPath: exe, Caps: &sandbox.Capabilities{}}
		},
		Working: func(*testing.T) engine.Runner { return &engine.ProcessRunner{HelperPath: exe} },
	})
}
