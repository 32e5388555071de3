package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The Codex user's day (issue 30) through the built binary: their config
// as it is, through ~/.docket and through a Codex home; local providers;
// exec as codex exec runs it.

// copyTree copies the regular files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// scriptFile writes a file and returns its path.
func scriptFile(t *testing.T, path, text string) string {
	t.Helper()
	writeFile(t, path, text)
	return path
}

// oneMessageScript is a model script answering once.
func oneMessageScript(t *testing.T) string {
	return scriptFile(t, filepath.Join(t.TempDir(), "script.jsonl"), `{"output":[{"type":"message","content":"hello from the script"}]}`+"\n")
}

// TestPowerUserCodexConfigLoadsThroughDocketHomeAndCodexHome loads the
// 96-line config of a Codex 0.171 power user (testdata/codex_home, with
// its NAME.config.toml profile, rules and AGENTS.md) as Docket's own
// config and, with no Docket config, from a Codex home. It runs a turn
// with no error; the Codex keys Docket has no use for are noted once, not
// on the next run; the profile file applies with -p; the Codex home's rules
// are the rules in force. The same config with default_permissions and a
// [permissions] table (the permission profiles issue) loads too.
func TestPowerUserCodexConfigLoadsThroughDocketHomeAndCodexHome(t *testing.T) {
	script := oneMessageScript(t)
	for _, mode := range []string{"docket home", "codex home", "codex home with permissions"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
			codexHome := filepath.Join(home, ".codex")
			var env []string
			switch mode {
			case "docket home":
				copyTree(t, filepath.Join("testdata", "codex_home"), filepath.Join(home, ".docket"))
				env = []string{"HOME=" + home, "DOCKET_HOME=", "CODEX_HOME="}
			default:
				copyTree(t, filepath.Join("testdata", "codex_home"), codexHome)
				env = []string{"HOME=" + home, "DOCKET_HOME=", "CODEX_HOME=" + codexHome}
			}
			if mode == "codex home with permissions" {
				f, err := os.OpenFile(filepath.Join(codexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				_, err = f.WriteString("\ndefault_permissions = \"dev\"\n\n[permissions.dev.filesystem]\n\":workspace_roots\" = \"write\"\n")
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					t.Fatal(err)
				}
				// default_permissions is a top-level key: put it before the tables.
				b, _ := os.ReadFile(filepath.Join(codexHome, "config.toml"))
				text := strings.Replace(string(b), "\ndefault_permissions = \"dev\"\n", "\n", 1)
				text = "default_permissions = \"dev\"\n" + text
				writeFile(t, filepath.Join(codexHome, "config.toml"), text)
			}
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			args := []string{"exec", "--skip-git-repo-check", "-C", ws, "--model-script", script, "-c", "otel.enabled=false", "say hello"}
			first := docket(t, env, args...)
			if first.code != 0 || strings.TrimSpace(first.stdout) != "hello from the script" {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", first.code, first.stdout, first.stderr)
			}
			if strings.Contains(strings.ToLower(first.stderr), "error") {
				t.Errorf("an error on loading:\n%s", first.stderr)
			}
			for _, want := range []string{"review_model (line ", "Docket has no review command", "web_search (line ",
				"model_supports_reasoning_summaries (line ", "preferred_auth_method", "shell_environment_policy.experimental_use_profile", "[tui]"} {
				if !strings.Contains(first.stderr, want) {
					t.Errorf("the note does not name %q:\n%s", want, first.stderr)
				}
			}
			if strings.Contains(first.stderr, "model_script") {
				t.Errorf("a Codex key is taken for a typo of model_script:\n%s", first.stderr)
			}
			readingCodex := strings.Contains(first.stderr, "reading Codex's "+filepath.Join(codexHome, "config.toml"))
			if readingCodex != (mode != "docket home") {
				t.Errorf("said it reads the Codex home: %v, want %v:\n%s", readingCodex, mode != "docket home", first.stderr)
			}
			second := docket(t, env, args...)
			if second.code != 0 || strings.Contains(second.stderr, "note") {
				t.Errorf("second run: exit %d; notes are said once, got:\n%s", second.code, second.stderr)
			}
			deep := docket(t, env, append([]string{"exec", "-p", "deep"}, args[1:]...)...)
			if deep.code != 0 || !strings.Contains(deep.stderr, "model      gpt-6-sol") {
				t.Errorf("-p deep: exit %d, the profile file did not apply:\n%s", deep.code, deep.stderr)
			}
			rc := runIn(t, docketBin, ws, env, "rules", "check", "--json", "--", "git", "push")
			if rc.code != 0 || !strings.Contains(rc.stdout, `"decision":"prompt"`) {
				t.Errorf("the config home's rules are not in force: exit %d\n%s\n%s", rc.code, rc.stdout, rc.stderr)
			}
		})
	}
}

// TestLocalProvidersNeedNoCredentials: a provider without env_key (a
// llama.cpp server) answers with no key in the environment and no
// Authorization header; --oss runs gpt-oss:20b on the ollama provider,
// --local-provider lmstudio on LM Studio's.
func TestLocalProvidersNeedNoCredentials(t *testing.T) {
	script := []turnScript{{items: []map[string]any{assistantMessage("local answer")}}}
	for _, tc := range []struct {
		name, config string
		args         []string
		model        string
	}{
		{"provider without env_key", "model = \"qwen3-coder\"\nmodel_provider = \"llamacpp\"\n[model_providers.llamacpp]\nname = \"llama.cpp\"\nbase_url = \"URL\"\n", nil, "qwen3-coder"},
		{"--oss", "[model_providers.ollama]\nbase_url = \"URL\"\n", []string{"--oss"}, "gpt-oss:20b"},
		{"--local-provider lmstudio", "[model_providers.lmstudio]\nbase_url = \"URL\"\n", []string{"--local-provider", "lmstudio", "-m", "qwen3"}, "qwen3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, url := newScriptedResponses(t, script...)
			home, ws := t.TempDir(), t.TempDir()
			writeFile(t, filepath.Join(home, "config.toml"), strings.ReplaceAll(tc.config, "URL", url))
			args := append(append([]string{"exec", "--skip-git-repo-check", "-C", ws}, tc.args...), "hi")
			r := docket(t, []string{"DOCKET_HOME=" + home, "OPENAI_API_KEY="}, args...)
			if r.code != 0 || strings.TrimSpace(r.stdout) != "local answer" {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			reqs := srv.requests()
			if len(reqs) != 1 || reqs[0].Body["model"] != tc.model || reqs[0].Header.Get("Authorization") != "" {
				t.Errorf("requests %d, model %v, Authorization %q", len(reqs), reqs[0].Body["model"], reqs[0].Header.Get("Authorization"))
			}
		})
	}
}

// TestProviderHeadersAndAzureQueryReachTheServer: query_params (Azure's
// api-version), http_headers and env_http_headers are on the request.
func TestProviderHeadersAndAzureQueryReachTheServer(t *testing.T) {
	srv, url := newScriptedResponses(t, turnScript{items: []map[string]any{assistantMessage("ok")}})
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "config.toml"), `model = "gpt-5.5"
model_provider = "azure"
[model_providers.azure]
name = "Azure OpenAI"
base_url = "`+url+`"
env_key = "AZURE_KEY"
query_params = { api-version = "2025-04-01-preview" }
http_headers = { "X-Title" = "codex" }
env_http_headers = { "X-Org" = "ORG_VAR" }
stream_max_retries = 3
`)
	r := docket(t, []string{"DOCKET_HOME=" + home, "AZURE_KEY=sk-az", "ORG_VAR=org-1"}, "exec", "--skip-git-repo-check", "-C", ws, "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	req := srv.requests()[0]
	if req.RawQuery != "api-version=2025-04-01-preview" || req.Header.Get("X-Title") != "codex" || req.Header.Get("X-Org") != "org-1" ||
		req.Header.Get("Authorization") != "Bearer sk-az" {
		t.Errorf("query %q headers %v", req.RawQuery, req.Header)
	}
}

// TestExecRunsWithApprovalNeverAsCodexExec: with approval_policy =
// "on-request" in the config, exec does not park (codex exec runs with
// never whatever the config says): a read-only patch is refused with
// Codex's reason and no item. With -a on-request given, it parks, and the
// Codex stream still ends with error and turn.failed.
func TestExecRunsWithApprovalNeverAsCodexExec(t *testing.T) {
	add := "*** Begin Patch\n*** Add File: h.txt\n+hello\n*** End Patch\n"
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"config asks, exec does not", nil, 0},
		{"-a on-request parks", []string{"-a", "on-request"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, url := newScriptedResponses(t, turnScript{items: []map[string]any{patchCall("call_r", add)}},
				turnScript{items: []map[string]any{assistantMessage("done")}})
			home, ws := t.TempDir(), t.TempDir()
			writeFile(t, filepath.Join(home, "config.toml"), providerTOML(url)+"\n")
			cfg, _ := os.ReadFile(filepath.Join(home, "config.toml"))
			writeFile(t, filepath.Join(home, "config.toml"), "approval_policy = \"on-request\"\n"+string(cfg))
			args := append([]string{"exec", "--json", "--skip-git-repo-check", "-C", ws, "-s", "read-only"}, tc.args...)
			r := docket(t, []string{"DOCKET_HOME=" + home, "MOCK_KEY=k"}, append(args, "write h.txt")...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			last := lines[len(lines)-1]
			if strings.Contains(r.stdout, `"file_change"`) || strings.Contains(r.stdout, "approval.requested") {
				t.Errorf("a refused or waiting call has an item, or an extension event is in Codex's stream:\n%s", r.stdout)
			}
			if _, err := os.Stat(filepath.Join(ws, "h.txt")); err == nil {
				t.Error("h.txt was written")
			}
			if tc.code == 0 {
				out := toolOutputs(srv.requests()[1])["call_r"]
				if !strings.Contains(out, "writing is blocked by read-only sandbox") || strings.Contains(out, "outside of the project") {
					t.Errorf("the model was told %q", out)
				}
				if !strings.Contains(last, `"turn.completed"`) {
					t.Errorf("last event %s", last)
				}
				return
			}
			if len(lines) < 2 || !strings.Contains(lines[len(lines)-2], `"type":"error"`) || !strings.Contains(last, `"turn.failed"`) ||
				!strings.Contains(last, "--decisions approved") {
				t.Errorf("a parked stream does not end with error and turn.failed saying so:\n%s", r.stdout)
			}
		})
	}
}

// TestExecAppendsPipedStdinToThePrompt: a prompt argument with stdin piped
// sends the prompt and a <stdin> block, as codex exec does.
func TestExecAppendsPipedStdinToThePrompt(t *testing.T) {
	srv, url := newScriptedResponses(t, turnScript{items: []map[string]any{assistantMessage("ok")}})
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "config.toml"), providerTOML(url))
	cmd := exec.Command(docketBin, "exec", "--skip-git-repo-check", "-C", ws, "summarise this")
	cmd.Env = append(os.Environ(), "DOCKET_HOME="+home, "MOCK_KEY=k")
	cmd.Stdin = strings.NewReader("line1\nline2")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	b, _ := json.Marshal(srv.requests()[0].Body["input"])
	if !strings.Contains(string(b), `summarise this\n\n\u003cstdin\u003e\nline1\nline2\n\u003c/stdin\u003e`) &&
		!strings.Contains(string(b), `summarise this\n\n<stdin>\nline1\nline2\n</stdin>`) {
		t.Errorf("the prompt sent is not the prompt and a <stdin> block: %s", b)
	}
}

// TestHumanHeaderSaysNetworkOnlyWhereTheSandboxHasIt: network_access is a
// workspace-write setting; a read-only run has no network.
func TestHumanHeaderSaysNetworkOnlyWhereTheSandboxHasIt(t *testing.T) {
	script := oneMessageScript(t)
	for mode, want := range map[string]string{"read-only": "network off", "workspace-write": "network on"} {
		home, ws := t.TempDir(), t.TempDir()
		r := docket(t, []string{"DOCKET_HOME=" + home}, "exec", "--skip-git-repo-check", "-C", ws, "-s", mode,
			"-c", "sandbox_workspace_write.network_access=true", "--model-script", script, "hi")
		if r.code != 0 || !strings.Contains(r.stderr, "sandbox "+mode+", "+want) {
			t.Errorf("-s %s: exit %d, want %q in the header:\n%s", mode, r.code, want, r.stderr)
		}
	}
}

// TestTopLevelFlagsAndAPromptStartAChat: docket -m o3, docket -a never and
// docket "prompt" are chat, as codex's top level is its UI; without a
// terminal chat is exec, so the turn runs and prints its answer.
func TestTopLevelFlagsAndAPromptStartAChat(t *testing.T) {
	script := oneMessageScript(t)
	home, ws := t.TempDir(), t.TempDir()
	for _, args := range [][]string{
		{"-a", "never", "say hi"},
		{"-m", "o3", "say hi"},
		{"say hi"},
	} {
		all := append([]string{"--skip-git-repo-check", "-C", ws, "--model-script", script}, args...)
		r := docket(t, []string{"DOCKET_HOME=" + home}, all...)
		if r.code != 0 || strings.TrimSpace(r.stdout) != "hello from the script" {
			t.Errorf("docket %v: exit %d\n%s\n%s", args, r.code, r.stdout, r.stderr)
		}
	}
	if r := docket(t, []string{"DOCKET_HOME=" + home}, "exce"); r.code != 2 || !strings.Contains(r.stderr, `did you mean "exec"`) {
		t.Errorf("a mistyped command: exit %d %s", r.code, r.stderr)
	}
}

// TestImportCodexCopiesConfigRulesAgentsAndProjectFiles: import-codex says
// what it copied; afterwards Docket reads its own home, and a project's
// .codex/ (noted, not loaded, before) is in .docket/.
func TestImportCodexCopiesConfigRulesAgentsAndProjectFiles(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	codexHome := filepath.Join(home, ".codex")
	copyTree(t, filepath.Join("testdata", "codex_home"), codexHome)
	proj := filepath.Join(dir, "proj")
	writeFile(t, filepath.Join(proj, ".codex", "config.toml"), "model_verbosity = \"low\"\n")
	writeFile(t, filepath.Join(proj, ".codex", "rules", "proj.rules"), `prefix_rule(pattern = ["make", "deploy"], decision = "forbidden")`+"\n")
	env := []string{"HOME=" + home, "DOCKET_HOME=", "CODEX_HOME=" + codexHome}
	script := oneMessageScript(t)
	before := docket(t, env, "exec", "--skip-git-repo-check", "-C", proj, "--model-script", script, "-c", "otel.enabled=false", "hi")
	if before.code != 0 || !strings.Contains(before.stderr, "which Docket does not load") || !strings.Contains(before.stderr, "import-codex -C "+proj) {
		t.Errorf("the project's .codex/ is not noted: exit %d\n%s", before.code, before.stderr)
	}
	r := docket(t, env, "import-codex", "-C", proj)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	docketHome := filepath.Join(home, ".docket")
	for _, f := range []string{filepath.Join(docketHome, "config.toml"), filepath.Join(docketHome, "deep.config.toml"),
		filepath.Join(docketHome, "rules", "default.rules"), filepath.Join(docketHome, "AGENTS.md"),
		filepath.Join(proj, ".docket", "config.toml"), filepath.Join(proj, ".docket", "rules", "proj.rules")} {
		if _, err := os.Stat(f); err != nil || !strings.Contains(r.stdout, "copied   ") || !strings.Contains(r.stdout, f) {
			t.Errorf("%s not copied or not said (%v):\n%s", f, err, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "1 trusted project(s); the configuration loads") {
		t.Errorf("no summary:\n%s", r.stdout)
	}
	again := docket(t, env, "import-codex", "-C", proj)
	if again.code != 0 || strings.Contains(again.stdout, "copied   ") || !strings.Contains(again.stdout, "kept     ") {
		t.Errorf("a second import replaced files:\n%s", again.stdout)
	}
	after := docket(t, env, "exec", "--skip-git-repo-check", "-C", filepath.Join(dir, "proj"), "--model-script", script, "-c", "otel.enabled=false", "hi")
	if after.code != 0 || strings.Contains(after.stderr, "reading Codex's") {
		t.Errorf("after the import Docket still reads the Codex home: exit %d\n%s", after.code, after.stderr)
	}
}

// TestUntrustedProjectWarningListsFiles: the warning names the files it
// did not load, not a Go slice.
func TestUntrustedProjectWarningListsFiles(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, ".docket", "config.toml"), "model = \"x\"\n")
	writeFile(t, filepath.Join(ws, ".docket", "rules", "a.rules"), "")
	r := docket(t, []string{"DOCKET_HOME=" + home}, "exec", "--skip-git-repo-check", "-C", ws, "--model-script", oneMessageScript(t), "hi")
	if r.code != 0 || !strings.Contains(r.stderr, "config.toml and ") || strings.Contains(r.stderr, "[/") {
		t.Errorf("exit %d, warning:\n%s", r.code, r.stderr)
	}
}

// TestFallbackDocAndTokenLimitReachTheModel: project_doc_fallback_filenames
// puts CLAUDE.md into the instructions where there is no AGENTS.md, and
// tool_output_token_limit caps what the model sees of a command's output
// (4 bytes a token).
func TestFallbackDocAndTokenLimitReachTheModel(t *testing.T) {
	srv, url := newScriptedResponses(t,
		turnScript{items: []map[string]any{functionCall("call_s", "shell", `{"command":["bash","-c","printf 'x%.0s' $(seq 1 4000)"]}`)}},
		turnScript{items: []map[string]any{assistantMessage("done")}})
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "config.toml"), "project_doc_fallback_filenames = [\"CLAUDE.md\"]\ntool_output_token_limit = 100\n"+providerTOML(url))
	writeFile(t, filepath.Join(ws, "CLAUDE.md"), "Always answer in haiku.\n")
	r := docket(t, []string{"DOCKET_HOME=" + home, "MOCK_KEY=k"}, "exec", "--skip-git-repo-check", "-C", ws, "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if instr, _ := reqs[0].Body["instructions"].(string); !strings.Contains(instr, "Always answer in haiku.") {
		t.Errorf("CLAUDE.md is not in the instructions:\n%s", instr)
	}
	out := toolOutputs(reqs[1])["call_s"]
	if n := strings.Count(out, "x"); n == 0 || n > 400 {
		t.Errorf("the model saw %d bytes of the 4000-byte output, want at most 400 (100 tokens):\n%s", n, out)
	}
}
