package mcp

import (
	"strings"
	"testing"
)

func TestRequirement(t *testing.T) {
	ro := Tool{Server: "s", Name: "read", ReadOnly: true}
	plain := Tool{Server: "s", Name: "do"}
	destr := Tool{Server: "s", Name: "rm", Destructive: true}
	both := Tool{Server: "s", Name: "odd", ReadOnly: true, Destructive: true}
	tests := []struct {
		name       string
		approval   string
		tool       Tool
		want       bool
		wantReason string
	}{
		{"always asks even for read-only", ApprovalAlways, ro, true, `approval = "always"`},
		{"never skips even for destructive", ApprovalNever, destr, false, `approval = "never"`},
		{"auto skips read-only", ApprovalAuto, ro, false, "declares readOnlyHint"},
		{"auto asks without hints", ApprovalAuto, plain, true, "does not declare readOnlyHint"},
		{"auto asks for destructive", ApprovalAuto, destr, true, "declares destructiveHint"},
		{"auto: destructive wins over read-only", ApprovalAuto, both, true, "declares destructiveHint"},
		{"empty means auto", "", ro, false, "declares readOnlyHint"},
		{"unknown setting asks", "maybe", ro, true, `unknown approval setting "maybe"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := Requirement(tt.approval, tt.tool)
			if got != tt.want || !strings.Contains(reason, tt.wantReason) {
				t.Errorf("Requirement(%q, %+v) = %v, %q; want %v, ~%q", tt.approval, tt.tool, got, reason, tt.want, tt.wantReason)
			}
		})
	}
}
