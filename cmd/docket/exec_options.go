package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/attach"
	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/replay/audit"
)

// bypassSetting is the setting a session started with
// --dangerously-bypass-approvals-and-sandbox records in its journal, so
// that the audit can say why every call ran without a sandbox.
const bypassSetting = audit.BypassSetting

// checkGitRepo refuses a workspace outside a git repository, as Codex's
// exec does: the agent's changes should be reviewable and undoable.
func checkGitRepo(cwd string) error {
	for dir := cwd; ; dir = filepath.Dir(dir) {
		if isGitDir(filepath.Join(dir, ".git")) {
			return nil
		}
		if parent := filepath.Dir(dir); parent == dir {
			break
		}
	}
	// A work tree whose .git lies elsewhere (GIT_DIR, GIT_WORK_TREE) is
	// still a repository: ask git when it is installed.
	if _, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command("git", "-C", cwd, "rev-parse", "--is-inside-work-tree")
		if out, err := cmd.Output(); err == nil && strings.TrimSpace(string(out)) == "true" {
			return nil
		}
	}
	return usageErrorf("%s is not inside a git repository; run git init there, trust it ([projects.%q] trust_level = \"trusted\"), or pass --skip-git-repo-check", cwd, cwd)
}

// isGitDir reports whether dotGit is a repository the way git itself
// decides while looking upwards: a directory with a HEAD, or a file that
// points elsewhere ("gitdir: ..."). An empty .git directory is not one:
// the sandbox binds such stubs over missing .git paths for the
// length of a call, and git walks past them too.
func isGitDir(dotGit string) bool {
	st, err := os.Stat(dotGit)
	if err != nil {
		return false
	}
	if !st.IsDir() {
		b, err := os.ReadFile(dotGit)
		return err == nil && strings.HasPrefix(string(b), "gitdir: ")
	}
	_, err = os.Stat(filepath.Join(dotGit, "HEAD"))
	return err == nil
}

// addDirs resolves --add-dir values to existing absolute directories.
func addDirs(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, usageErrorf("--add-dir %s: %v", d, err)
		}
		info, err := os.Stat(abs)
		switch {
		case err != nil:
			return nil, usageErrorf("--add-dir %s: %v", d, err)
		case !info.IsDir():
			return nil, usageErrorf("--add-dir %s is not a directory", d)
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		out = append(out, abs)
	}
	return out, nil
}

// turnOptions is what exec's flags add to a turn: images with the prompt,
// a schema for the final message, a file to write it to.
type turnOptions struct {
	images     []string // data URLs
	schema     json.RawMessage
	lastMsg    string
	schemaFile string
}

func (f *execFlags) turnOptions() (turnOptions, error) {
	o := turnOptions{lastMsg: f.outputLastMessage, schemaFile: f.outputSchema}
	if f.outputSchema != "" {
		s, err := readSchema(f.outputSchema)
		if err != nil {
			return o, err
		}
		o.schema = s
	}
	for _, p := range f.images {
		u, err := imageDataURL(p)
		if err != nil {
			return o, err
		}
		o.images = append(o.images, u)
	}
	if o.lastMsg != "" {
		// Fail before the turn, not after it, when the file cannot be written.
		if _, err := os.Stat(filepath.Dir(o.lastMsg)); err != nil {
			return o, usageErrorf("--output-last-message %s: %v", o.lastMsg, err)
		}
	}
	return o, nil
}

// readSchema reads an --output-schema file: a JSON object.
func readSchema(path string) (json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErrorf("--output-schema: %v", err)
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, usageErrorf("--output-schema %s: not JSON at byte %d: %v", path, se.Offset, err)
		}
		return nil, usageErrorf("--output-schema %s: not a JSON object: %v", path, err)
	}
	return json.RawMessage(b), nil
}

// input is the turn's input: the prompt with its @ references expanded
// against the workspace cwd (the files' content attached, images added to
// --image's), or a usage error naming the reference that failed. A
// reference to no file stays text, with a warning on w. An empty prompt
// (resume with none) expands to nothing.
func (o turnOptions) input(w io.Writer, cwd, prompt string) (engine.TurnInput, error) {
	if strings.TrimSpace(prompt) == "" {
		return engine.TurnInput{Text: prompt}, nil
	}
	res, err := attach.Expand(cwd, prompt, attach.DefaultLimits())
	if err != nil {
		return engine.TurnInput{}, usageErrorf("the prompt: %v", err)
	}
	for _, ref := range res.Unresolved {
		fmt.Fprintf(w, "docket: %s names no file in the workspace; it is sent as text (write @@ for a literal @ to silence this)\n", ref)
	}
	return engine.TurnInput{Text: res.Text, Images: append(slices.Clone(o.images), res.Images...), Attachments: res.Attachments}, nil
}

// writeLastMessage writes the final message for -o. A turn that ended
// without one writes an empty file, so a script never reads a stale one.
func (o turnOptions) writeLastMessage(res engine.TurnResult) error {
	if o.lastMsg == "" || res.TurnID == "" {
		return nil
	}
	msg := ""
	if res.Status == events.TurnCompleted {
		msg = res.Message
	}
	if err := os.WriteFile(o.lastMsg, []byte(msg), 0o644); err != nil {
		return fmt.Errorf("--output-last-message: %w", err)
	}
	return nil
}
