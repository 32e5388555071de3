package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine/hooks"
)

// TestTheReviewNamesProgramsTheSessionCanWrite: a program file outside
// the hook's config directory (read-only to the sandbox) can be changed
// by a command of the session between the check before a run and the
// run; the review says so, and says nothing of one inside.
func TestTheReviewNamesProgramsTheSessionCanWrite(t *testing.T) {
	for _, tc := range []struct {
		program string
		warned  bool
	}{{"/p/.docket/gate.sh", false}, {"/p/scripts/gate.sh", true}} {
		r := config.HookReview{Stage: "pre_tool", Name: "gate", File: "/p/.docket/config.toml", Status: config.HookNew,
			Hook: config.Hook{Command: []string{"sh", tc.program}}, Programs: []string{tc.program},
			Pins: []hooks.Pin{{Path: "/p/.docket", Target: "/p/.docket", State: "directory", Tree: true}}}
		var b bytes.Buffer
		writeHookDefinition(&b, r)
		if got := strings.Contains(b.String(), "the session's commands may write it"); got != tc.warned {
			t.Errorf("%s: warned %t, want %t:\n%s", tc.program, got, tc.warned, b.String())
		}
	}
}
