package engine_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
	"github.com/docket-engine/docket/engine/codextest"
	"github.com/docket-engine/docket/engine/uexec"
	"github.com/docket-engine/docket/events"
)

// codexScenario is one entry of approvals.json.
type codexScenario struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Approval string `json:"approval"`
	Sandbox  string `json:"sandbox"`
	Network  *bool  `json:"network_access"`
	Action   struct {
		Kind          string       `json:"kind"`
		Target        *codexTarget `json:"target"`
		Content       string       `json:"content"`
		Command       string       `json:"command"`
		Justification *string      `json:"justification"`
		Endpoint      string       `json:"endpoint"`
		ResponseBody  string       `json:"response_body"`
	} `json:"action"`
	Permissions string `json:"sandbox_permissions"`
	Outcome     struct {
		Kind     string  `json:"kind"` // auto, exec, patch
		Decision string  `json:"decision"`
		Reason   *string `json:"expected_reason"`
	} `json:"outcome"`
	Expectation struct {
		Kind            string       `json:"kind"`
		Target          *codexTarget `json:"target"`
		Content         string       `json:"content"`
		MessageContains []string     `json:"message_contains"`
		BodyContains    string       `json:"body_contains"`
		ExpectTag       string       `json:"expect_tag"`
		StdoutContains  string       `json:"stdout_contains"`
		OutputContains  string       `json:"output_contains"`
	} `json:"expectation"`
}

type codexTarget struct {
	Where string `json:"where"` // workspace, outside
	Name  string `json:"name"`
}

// codexUnifiedExecJustification is DEFAULT_UNIFIED_EXEC_JUSTIFICATION in
// Codex's approvals.rs, which approvals.json names by its identifier.
const codexUnifiedExecJustification = "Requires escalated permissions to bypass the sandbox in tests."

// TestCodexApprovalMatrix runs Codex's approval matrix through the engine:
// each scenario is one scripted model call in a real session (real
// journal, real sandbox), answered as Codex's test answers it, and checked
// as Codex checks it: which approval was asked (kind, reason), then the
// file, the network fetch or the output the model saw. Codex's own extra
// approval tests (kind "extra") are run one by one below.
func TestCodexApprovalMatrix(t *testing.T) {
	t.Parallel()
	var data struct {
		Scenarios []codexScenario `json:"scenarios"`
	}
	codextest.ReadJSON(t, "approvals.json", &data)
	if len(data.Scenarios) == 0 {
		t.Fatal("approvals.json holds no scenarios")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, strings.TrimPrefix(r.URL.Query().Get("body"), ""))
	}))
	defer srv.Close()
	sc := codextest.NewScorer(t, "approvals.json", len(data.Scenarios))
	for _, s := range data.Scenarios {
		var mismatch string
		ran := false // false when -run filters the subtest out
		t.Run(s.Name, func(t *testing.T) {
			ran = true
			if s.Kind == "extra" {
				run, ok := codexExtras[s.Name]
				if !ok {
					t.Fatalf("approvals.json: no check for the extra test %q", s.Name)
				}
				mismatch = run(t)
				return
			}
			mismatch = runCodexScenario(t, s, srv.URL)
		})
		if ran {
			sc.Check(t, s.Name, mismatch)
		}
	}
}

// codexOutput is the model-facing output parsed as Codex's parse_result does.
type codexOutput struct {
	exit   *int
	stdout string
}

var (
	codexStructured = regexp.MustCompile(`(?s)^Exit code:\s*(-?\d+).*?Output:\n(.*)$`)
	// codexUnified is exec_command's text (Codex's unified exec output).
	codexUnified = regexp.MustCompile(`(?s)^Chunk ID: .*?\nProcess exited with code (-?\d+)\n.*?Output:\n(.*)$`)
)

func parseCodexOutput(out string) codexOutput {
	m := codexStructured.FindStringSubmatch(out)
	if m == nil {
		m = codexUnified.FindStringSubmatch(out)
	}
	if m != nil {
		var code int
		fmt.Sscan(m[1], &code)
		return codexOutput{exit: &code, stdout: m[2]}
	}
	return codexOutput{stdout: out}
}

func (o codexOutput) exitIs(code int) bool { return o.exit != nil && *o.exit == code }
func (o codexOutput) zeroOrNone() bool     { return o.exit == nil || *o.exit == 0 }
func (o codexOutput) String() string {
	return fmt.Sprintf("exit %v, output %q", deref(o.exit), o.stdout)
}
func deref(p *int) any {
	if p == nil {
		return "none"
	}
	return *p
}

func runCodexScenario(t *testing.T, s codexScenario, baseURL string) string {
	t.Helper()
	// Paths are written with the fixture's placeholders ($WS, $OUT), which
	// it replaces in the script; real() resolves them once it exists.
	target := func(tg *codexTarget) (abs, inPatch string) {
		if tg.Where == "outside" {
			return "$OUT/" + tg.Name, "$OUT/" + tg.Name
		}
		return "$WS/" + tg.Name, tg.Name
	}
	var item, command string
	escalated := s.Permissions == "RequireEscalated"
	shell := func(cmd string, justification *string) string {
		args := map[string]any{"command": []string{"bash", "-lc", cmd}}
		if escalated {
			args["sandbox_permissions"] = "require_escalated"
			if justification != nil {
				args["justification"] = *justification
			}
		}
		a, _ := json.Marshal(args)
		return fmt.Sprintf(`{"output":[{"type":"function_call","call_id":"c1","name":"shell","arguments":%s}]}`, a)
	}
	a := s.Action
	switch a.Kind {
	case "WriteFile":
		p, _ := target(a.Target)
		command = fmt.Sprintf("printf %q > %q && cat %q", a.Content, p, p)
		item = shell(command, nil)
	case "FetchUrl", "FetchUrlNoProxy":
		url := baseURL + a.Endpoint + "?body=" + a.ResponseBody
		open := "urllib.request.urlopen(url, timeout=2)"
		if a.Kind == "FetchUrlNoProxy" {
			open = "urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=2)"
		}
		script := "import sys\nimport urllib.request\nurl = '" + url + "'\ntry:\n    data = " + open +
			".read().decode()\n    print('OK:' + data.strip())\nexcept Exception as exc:\n    print('ERR:' + exc.__class__.__name__)\n    sys.exit(1)"
		command = "python3 -c \"" + script + "\""
		item = shell(command, nil)
	case "RunCommand":
		command = a.Command
		item = shell(command, nil)
	case "RunUnifiedExecCommand":
		command = a.Command
		j := a.Justification
		if escalated && (j == nil || *j == "DEFAULT_UNIFIED_EXEC_JUSTIFICATION") {
			d := codexUnifiedExecJustification
			j = &d
		}
		// Codex runs these through exec_command: so does Docket now.
		args := map[string]any{"cmd": command, "yield_time_ms": 30000}
		if escalated {
			args["sandbox_permissions"] = "require_escalated"
			if j != nil {
				args["justification"] = *j
			}
		}
		ea, _ := json.Marshal(args)
		item = fmt.Sprintf(`{"output":[{"type":"function_call","call_id":"c1","name":"exec_command","arguments":%s}]}`, ea)
	case "ApplyPatchFunction", "ApplyPatchShell":
		_, inPatch := target(a.Target)
		p := "*** Begin Patch\n*** Add File: " + inPatch + "\n+" + a.Content + "\n*** End Patch\n"
		if a.Kind == "ApplyPatchFunction" {
			item = patchItem("function", "c1", p)
		} else {
			item = shellArgvLine("c1", "bash", "-lc", "apply_patch <<'PATCH'\n"+p+"PATCH\n")
		}
	default:
		t.Fatalf("approvals.json %s: unknown action %q", s.Name, a.Kind)
	}
	f := newFixture(t, setup{approval: s.Approval, mode: s.Sandbox, network: s.Network != nil && *s.Network,
		answers: codexAnswers(s.Outcome.Decision), script: item + "\n" + done, runner: codexRunner(t), tools: codexTools()})
	real := strings.NewReplacer("$WS", f.ws, "$OUT", f.outside).Replace
	command = real(command)
	res := f.turn("go")
	if res.Status != events.TurnCompleted {
		return fmt.Sprintf("turn %s (path %s)", res.Status, f.path("c1"))
	}
	var problems []string
	asked := f.asked()
	switch s.Outcome.Kind {
	case "auto":
		if len(asked) != 0 {
			problems = append(problems, fmt.Sprintf("asked %d time(s) (%s: %s), Codex asks nothing", len(asked), asked[0].Kind, asked[0].Reason))
		}
	case "exec", "patch":
		want := events.ApprovalExec
		if s.Outcome.Kind == "patch" {
			want = events.ApprovalPatch
		}
		switch {
		case len(asked) != 1:
			problems = append(problems, fmt.Sprintf("asked %d time(s), Codex asks once (%s)", len(asked), want))
		case asked[0].Kind != want:
			problems = append(problems, fmt.Sprintf("asked a %s approval, Codex a %s approval", asked[0].Kind, want))
		default:
			if want == events.ApprovalExec && (len(asked[0].Command) == 0 || asked[0].Command[len(asked[0].Command)-1] != command) {
				problems = append(problems, fmt.Sprintf("approval shows %q, Codex %q", asked[0].Command, command))
			}
			if r := s.Outcome.Reason; r != nil {
				wantReason := *r
				if wantReason == "DEFAULT_UNIFIED_EXEC_JUSTIFICATION" {
					wantReason = codexUnifiedExecJustification
				}
				if asked[0].Reason != wantReason {
					problems = append(problems, fmt.Sprintf("reason %q, Codex %q", asked[0].Reason, wantReason))
				}
			}
		}
	default:
		t.Fatalf("approvals.json %s: unknown outcome %q", s.Name, s.Outcome.Kind)
	}
	out := parseCodexOutput(outputOf(f, "c1"))
	e := s.Expectation
	fileHas := func(tg *codexTarget, content string) bool {
		p, _ := target(tg)
		data, err := os.ReadFile(real(p))
		return err == nil && strings.Contains(string(data), content)
	}
	switch e.Kind {
	case "FileCreated", "FileCreatedNoExitCode":
		okExit := out.exitIs(0)
		if e.Kind == "FileCreatedNoExitCode" {
			okExit = out.zeroOrNone()
		}
		if !okExit || !strings.Contains(out.stdout, e.Content) || !fileHas(e.Target, e.Content) {
			problems = append(problems, fmt.Sprintf("want the file written with %q and shown: %s, file written %v", e.Content, out, fileHas(e.Target, e.Content)))
		}
	case "PatchApplied":
		if !out.zeroOrNone() || (out.exit == nil && !strings.Contains(out.stdout, "Success.")) || !fileHas(e.Target, e.Content) {
			problems = append(problems, fmt.Sprintf("want the patch applied: %s, file has content %v", out, fileHas(e.Target, e.Content)))
		}
	case "FileNotCreated":
		p, _ := target(e.Target)
		if p = real(p); out.exitIs(0) || exists(p) {
			problems = append(problems, fmt.Sprintf("want the file not written and a failure: %s, exists %v", out, exists(p)))
		}
		for _, needle := range e.MessageContains {
			if !slices.ContainsFunc(strings.Split(needle, "|"), func(o string) bool { return strings.Contains(out.stdout, o) }) {
				problems = append(problems, fmt.Sprintf("the model is not told %q: %s", needle, out))
			}
		}
	case "NetworkSuccess", "NetworkSuccessNoExitCode":
		okExit := out.exitIs(0)
		if e.Kind == "NetworkSuccessNoExitCode" {
			okExit = out.zeroOrNone()
		}
		if !okExit || !strings.Contains(out.stdout, "OK:") || !strings.Contains(out.stdout, e.BodyContains) {
			problems = append(problems, fmt.Sprintf("want the fetch to succeed: %s", out))
		}
	case "NetworkFailure":
		if out.exitIs(0) || !strings.Contains(out.stdout, "ERR:") || !strings.Contains(out.stdout, e.ExpectTag) {
			problems = append(problems, fmt.Sprintf("want the fetch to fail: %s", out))
		}
	case "CommandSuccess", "CommandSuccessNoExitCode":
		okExit := out.exitIs(0)
		if e.Kind == "CommandSuccessNoExitCode" {
			okExit = out.zeroOrNone()
		}
		if !okExit || !strings.Contains(out.stdout, e.StdoutContains) {
			problems = append(problems, fmt.Sprintf("want success with %q: %s", e.StdoutContains, out))
		}
	case "CommandFailure":
		if out.exitIs(0) || !strings.Contains(out.stdout, e.OutputContains) {
			problems = append(problems, fmt.Sprintf("want a failure saying %q: %s", e.OutputContains, out))
		}
	default:
		t.Fatalf("approvals.json %s: unknown expectation %q", s.Name, e.Kind)
	}
	if len(problems) > 0 {
		problems = append(problems, "path "+f.path("c1"))
	}
	return strings.Join(problems, "; ")
}

func codexAnswers(decision string) []events.ReviewDecision {
	switch decision {
	case "":
		return nil
	case "denied":
		return []events.ReviewDecision{events.Denied}
	}
	return []events.ReviewDecision{events.ReviewDecision(decision)}
}

// codexRunner is the real runner with a process table, for the unified
// exec vectors; codexTools the tools Codex offers with unified exec.
func codexRunner(t *testing.T) *engine.ProcessRunner {
	exe, _ := os.Executable()
	procs := &uexec.Table{}
	t.Cleanup(func() { procs.Close() })
	return &engine.ProcessRunner{HelperPath: exe, Processes: procs}
}

func codexTools() []engine.Tool { return engine.DefaultTools() }
