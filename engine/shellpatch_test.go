package engine

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/docket-engine/docket/engine/model"
)

// The filter in front of ShellTool.WritePaths never hides an intercepted
// patch: for each shape, spelled literally or with JSON escapes, the
// filtered and unfiltered answers agree, and the patches are found.
func TestShellWritePathsFilterKeepsPatches(t *testing.T) {
	const patchText = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"
	argv := func(cmd ...string) string {
		b, err := json.Marshal(map[string]any{"command": cmd})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name    string
		payload string
		patch   bool
	}{
		{"a plain command", argv("bash", "-lc", "echo 1 > f1"), false},
		{"argv apply_patch", argv("apply_patch", patchText), true},
		{"argv applypatch", argv("applypatch", patchText), true},
		{"a here-document", argv("bash", "-lc", "apply_patch <<'EOF'\n"+patchText+"EOF\n"), true},
		{"cd then a here-document", argv("bash", "-lc", "cd sub && apply_patch <<'EOF'\n"+patchText+"EOF\n"), true},
		// json.Marshal writes < as \u003c: "<<" is not in the payload.
		{"a here-document, < escaped", `{"command":["bash","-lc","apply_patch \u003c\u003c'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\nEOF\n"]}`, true},
		{"the name escaped", `{"command":["\u0061pply_patch","*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"]}`, true},
		{"a here-document that is no patch", argv("bash", "-lc", "cat <<EOF\nhi\nEOF\n"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Call{Kind: model.ToolFunction, Name: "shell", Payload: tc.payload}
			got := ShellTool{}.WritePaths(c, "/w")
			want := shellWritePaths(c, "/w")
			if !slices.Equal(got, want) {
				t.Fatalf("filtered %q, unfiltered %q", got, want)
			}
			if tc.patch != (len(got) > 0) {
				t.Fatalf("paths %q, want a patch: %v", got, tc.patch)
			}
		})
	}
}
