package config

import (
	"slices"
	"testing"
)

// A higher layer adds hooks to the lower ones' lists and never drops them;
// other array keys are still replaced whole.
func TestHookListsAddUpAcrossLayers(t *testing.T) {
	user := tree{"hooks": tree{"pre_tool": []any{tree{"tool": "shell", "command": []any{"/etc/hooks/guard"}}}},
		"writable_roots": []any{"/a"}}
	project := tree{"hooks": tree{"pre_tool": []any{tree{"tool": "*", "command": []any{"./proj-hook"}}}},
		"writable_roots": []any{"/b"}}
	merged := tree{}
	for _, l := range []tree{user, project} {
		merge(merged, l, nil, func([]string) {})
	}
	pre := merged["hooks"].(tree)["pre_tool"].([]any)
	var cmds []string
	for _, h := range pre {
		cmds = append(cmds, h.(tree)["command"].([]any)[0].(string))
	}
	if !slices.Equal(cmds, []string{"/etc/hooks/guard", "./proj-hook"}) {
		t.Errorf("pre_tool hooks after merge: %v, want the operator's then the project's", cmds)
	}
	if roots := merged["writable_roots"].([]any); len(roots) != 1 || roots[0] != "/b" {
		t.Errorf("writable_roots: %v, want the higher layer's alone", roots)
	}
	// The lower layer's tree is not changed by the merge.
	if n := len(user["hooks"].(tree)["pre_tool"].([]any)); n != 1 {
		t.Errorf("user layer now has %d hooks", n)
	}
}
