package mcp

import (
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "TOKEN": "s3cret", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name, in, want, wantErr string
	}{
		{name: "no variables", in: "plain text", want: "plain text"},
		{name: "one variable", in: "${HOME}/x", want: "/home/u/x"},
		{name: "several and adjacent", in: "${TOKEN}${HOME}", want: "s3cret/home/u"},
		{name: "set but empty", in: "a${EMPTY}b", want: "ab"},
		{name: "bare dollar forms are kept", in: "$HOME $ $$ $(x)", want: "$HOME $ $$ $(x)"},
		{name: "double dollar escapes", in: "$${HOME}", want: "${HOME}"},
		{name: "unset is an error naming it", in: "${NOPE}", wantErr: "NOPE is not set"},
		{name: "unterminated", in: "x ${HOME", wantErr: "unterminated ${"},
		{name: "bad name", in: "${1X}", wantErr: "not a variable name"},
		{name: "empty name", in: "${}", wantErr: "not a variable name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Expand(tt.in, lookup)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Expand(%q) = %q, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Expand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"", "${A}", "$${A}", "${", "${A", "x$y${B}z", "${A}${B}${C}", "$$$${A}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lookup := func(k string) (string, bool) { return "<" + k + ">", k != "UNSET" }
		got, err := Expand(s, lookup)
		if err != nil {
			return
		}
		// Text without "${" expands to itself.
		if !strings.Contains(s, "${") && got != s {
			t.Fatalf("Expand(%q) = %q, want it unchanged", s, got)
		}
		// Every variable was replaced: no "${NAME}" survives unless escaped.
		if strings.Contains(got, "${") && !strings.Contains(s, "$${") {
			t.Fatalf("Expand(%q) = %q still holds ${", s, got)
		}
	})
}
