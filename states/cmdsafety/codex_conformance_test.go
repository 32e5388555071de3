package cmdsafety_test

import (
	"fmt"
	"testing"

	"github.com/docket-engine/docket/engine/codextest"
	"github.com/docket-engine/docket/states/cmdsafety"
)

// safetyVector is one entry of safety_vectors.json.
type safetyVector struct {
	Group  string   `json:"group"`
	Source string   `json:"source"`
	Fn     string   `json:"codex_fn"`
	Argv   []string `json:"argv"`
	Expect bool     `json:"expect"`
}

// scoredSafetyGroups are the groups of the Codex version DESIGN 3.2 lists;
// the upstream-* groups are other versions, reported but not scored.
var scoredSafetyGroups = map[string]bool{"baseline": true, "bash-derived": true}

// TestCodexSafetyVectors checks every known-safe and dangerous command
// vector from Codex's tests against cmdsafety. A vector's id is its index
// in the file ("#12"), as docs/codex-differences.md cites it.
func TestCodexSafetyVectors(t *testing.T) {
	var data struct {
		Vectors []safetyVector `json:"vectors"`
	}
	codextest.ReadJSON(t, "safety_vectors.json", &data)
	if len(data.Vectors) == 0 {
		t.Fatal("safety_vectors.json holds no vectors")
	}
	sc := codextest.NewScorer(t, "safety_vectors.json", len(data.Vectors))
	for i, v := range data.Vectors {
		id := fmt.Sprintf("#%d", i)
		var got bool
		switch v.Fn {
		case "is_known_safe_command", "is_safe_to_call_with_exec":
			got = cmdsafety.Analyze(v.Argv).KnownSafe()
		case "command_might_be_dangerous":
			got = cmdsafety.Analyze(v.Argv).Dangerous()
		default:
			t.Fatalf("safety_vectors.json %s: unknown codex_fn %q", id, v.Fn)
		}
		mismatch := ""
		if got != v.Expect {
			mismatch = fmt.Sprintf("%s(%q) = %v, Codex (%s) says %v", v.Fn, v.Argv, got, v.Source, v.Expect)
		}
		if scoredSafetyGroups[v.Group] {
			sc.Check(t, id, mismatch)
		} else {
			sc.Unscored(t, id, mismatch)
		}
	}
}
