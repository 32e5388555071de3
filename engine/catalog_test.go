package engine

import (
	"strings"
	"testing"
)

func toolNames(ts []Tool) string {
	var n []string
	for _, t := range ts {
		n = append(n, t.Spec().Name)
	}
	return strings.Join(n, " ")
}

func TestTheCatalogueChoosesEachModelsTools(t *testing.T) {
	c, err := ParseCatalog([]byte(`{"models":[
		{"slug":"ux","shell_type":"unified_exec","apply_patch_tool_type":"freeform","context_window":1,"model_messages":{}},
		{"slug":"sc","shell_type":"shell_command","apply_patch_tool_type":null},
		{"slug":"nat","shell_type":"local","apply_patch_tool_type":"native"},
		{"slug":"off","shell_type":"disabled"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for model, want := range map[string]string{
		"ux":      "shell exec_command write_stdin apply_patch",
		"sc":      "shell shell_command apply_patch",
		"nat":     "shell shell_call apply_patch apply_patch_call",
		"off":     "shell apply_patch",
		"unknown": "shell apply_patch exec_command write_stdin",
	} {
		if got := toolNames(c.ToolsFor(model)); got != want {
			t.Errorf("%s: %q, want %q", model, got, want)
		}
	}
	if got := toolNames((*Catalog)(nil).ToolsFor("x")); got != "shell apply_patch exec_command write_stdin" {
		t.Errorf("no catalogue: %q", got)
	}
}

func TestABadCatalogueNamesTheModel(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"models":[{"slug":"m","shell_type":"zsh"}]}`, `model "m": shell_type "zsh"`},
		{`{"models":[{"slug":"m","apply_patch_tool_type":"diff"}]}`, `model "m": apply_patch_tool_type "diff"`},
		{`{"models":[{"shell_type":"local"}]}`, "models[0] has no slug"},
		{`{}`, `no "models" array`},
		{`{"models":[`, "model catalogue:"},
	} {
		if _, err := ParseCatalog([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseCatalog(f *testing.F) {
	f.Add([]byte(`{"models":[{"slug":"ux","shell_type":"unified_exec"}]}`))
	f.Add([]byte(`{"models":[{"slug":"n","shell_type":"local","apply_patch_tool_type":"native"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseCatalog(b)
		if err != nil {
			return
		}
		for _, m := range c.Models {
			if len(c.ToolsFor(m.Slug)) == 0 {
				t.Fatalf("model %q offered no tools", m.Slug)
			}
		}
	})
}
