package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/docket-engine/docket/cmd/docket/internal/config"
	"github.com/docket-engine/docket/engine/hooks"
)

// TestTheReviewNamesProgramsTheSessionCanWrite: a program file outside
// the hook's config directory (read-only to the sandbox) is in the
// workspace; the review says that, trusted, it becomes read-only to a
// sandboxed session's commands, and says nothing of one inside.
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
		if got := strings.Contains(b.String(), "a sandboxed session makes it read-only"); got != tc.warned {
			t.Errorf("%s: warned %t, want %t:\n%s", tc.program, got, tc.warned, b.String())
		}
	}
}
