package engine

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Catalog is Codex's model catalogue (the file config's model_catalog_json
// names): per model, which shell tool and which apply_patch it is offered.
// Only the keys that choose tools are read; Codex's other keys are allowed
// and ignored.
type Catalog struct {
	Models []CatalogModel `json:"models"`
}

// CatalogModel is one model's entry.
type CatalogModel struct {
	Slug string `json:"slug"`
	// ShellType is Codex's: "unified_exec" (exec_command and write_stdin),
	// "shell_command", "default" (Docket's shell, argv), "local" (the
	// Responses API's own shell tool), "disabled" (none beyond Docket's
	// shell, which is always offered).
	ShellType string `json:"shell_type"`
	// ApplyPatchToolType is "freeform" (a custom tool), "function", or
	// "native" (Docket's spelling for the Responses API's own apply_patch
	// tool); absent means freeform.
	ApplyPatchToolType *string `json:"apply_patch_tool_type"`
}

// ParseCatalog reads a catalogue; an unknown shell_type or apply_patch
// type is an error naming the model.
func ParseCatalog(data []byte) (*Catalog, error) {
	var c Catalog
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("model catalogue: %w", err)
	}
	if c.Models == nil {
		return nil, errors.New(`model catalogue: no "models" array`)
	}
	for i, m := range c.Models {
		if m.Slug == "" {
			return nil, fmt.Errorf("model catalogue: models[%d] has no slug", i)
		}
		if _, err := shellTools(m.ShellType); err != nil {
			return nil, fmt.Errorf("model catalogue: model %q: %w", m.Slug, err)
		}
		if _, err := patchTools(m.ApplyPatchToolType); err != nil {
			return nil, fmt.Errorf("model catalogue: model %q: %w", m.Slug, err)
		}
	}
	return &c, nil
}

// DefaultTools are the built-in tools a model outside any catalogue is
// offered: Docket's shell and apply_patch, and unified exec, which Codex
// offers every model it has no metadata for.
func DefaultTools() []Tool {
	return []Tool{ShellTool{}, ApplyPatchTool{}, ExecCommandTool{}, WriteStdinTool{}}
}

// ToolsFor returns the built-in tools model is offered: its catalogue
// entry's shell and apply_patch tools, always with Docket's shell; a model
// the catalogue does not list (or no catalogue) gets DefaultTools.
func (c *Catalog) ToolsFor(model string) []Tool {
	if c == nil {
		return DefaultTools()
	}
	for _, m := range c.Models {
		if m.Slug != model {
			continue
		}
		shell, _ := shellTools(m.ShellType)          // checked by ParseCatalog
		patch, _ := patchTools(m.ApplyPatchToolType) // checked by ParseCatalog
		return append(append([]Tool{ShellTool{}}, shell...), patch...)
	}
	return DefaultTools()
}

func shellTools(shellType string) ([]Tool, error) {
	switch shellType {
	case "unified_exec":
		return []Tool{ExecCommandTool{}, WriteStdinTool{}}, nil
	case "shell_command":
		return []Tool{ShellCommandTool{}}, nil
	case "local":
		return []Tool{NativeShellTool{}}, nil
	case "", "default", "disabled":
		return nil, nil
	}
	return nil, fmt.Errorf("shell_type %q: want unified_exec, shell_command, default, local or disabled", shellType)
}

func patchTools(t *string) ([]Tool, error) {
	if t == nil {
		return []Tool{ApplyPatchTool{}}, nil
	}
	switch *t {
	case "freeform", "function":
		// Docket's apply_patch takes the patch either way.
		return []Tool{ApplyPatchTool{}}, nil
	case "native":
		return []Tool{ApplyPatchTool{}, NativeApplyPatchTool{}}, nil
	}
	return nil, fmt.Errorf("apply_patch_tool_type %q: want freeform, function or native", *t)
}
