package consensus

import (
	"fmt"
	"strings"
	"testing"

	"github.com/docket-engine/docket/engine"
)

func res(name, status, answer, why string) engine.AgentResult {
	return engine.AgentResult{Agent: name, Status: status, Answer: answer, Error: why}
}

func TestBuildJudgesQuorumAndAgreement(t *testing.T) {
	for _, tc := range []struct {
		name    string
		quorum  int
		results []engine.AgentResult
		valid   bool
		groups  string
		errHas  []string
	}{
		{"two of three agree, quorum 2", 2, []engine.AgentResult{
			res("a", engine.AgentFinished, "The answer is 42.", ""),
			res("b", engine.AgentFinished, "the answer is 42", ""),
			res("c", engine.AgentFailed, "", "exit code 1: quota"),
		}, true, "[[a b]]", nil},
		{"finished but disagreeing still counts for the quorum", 2, []engine.AgentResult{
			res("a", engine.AgentFinished, "42", ""),
			res("b", engine.AgentFinished, "it is 54, not what a said", ""),
		}, true, "[[a] [b]]", nil},
		{"quorum not met names each failure", 2, []engine.AgentResult{
			res("a", engine.AgentFinished, "42", ""),
			res("b", engine.AgentTimedOut, "", "no answer before its deadline"),
			res("c", engine.AgentFailed, "", "exit code 1: quota"),
		}, false, "[[a]]", []string{"1 of 3 agents finished, 2 needed", "b timed out (no answer before its deadline)", "c failed (exit code 1: quota)"}},
		{"largest group first", 1, []engine.AgentResult{
			res("a", engine.AgentFinished, "red", ""),
			res("b", engine.AgentFinished, "blue", ""),
			res("c", engine.AgentFinished, "Blue.", ""),
		}, true, "[[b c] [a]]", nil},
		{"nobody finished", 1, []engine.AgentResult{res("a", engine.AgentFailed, "", "x")}, false, "[]", []string{"0 of 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Build("q", tc.quorum, tc.results)
			if r.Valid != tc.valid {
				t.Errorf("valid %v, want %v (%s)", r.Valid, tc.valid, r.Error)
			}
			if got := fmt.Sprint(r.Groups); got != tc.groups {
				t.Errorf("groups %s, want %s", got, tc.groups)
			}
			for _, w := range tc.errHas {
				if !strings.Contains(r.Error, w) {
					t.Errorf("error %q does not say %q", r.Error, w)
				}
			}
			if tc.valid && r.Error != "" {
				t.Errorf("a valid consensus has an error: %q", r.Error)
			}
		})
	}
}
