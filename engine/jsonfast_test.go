package engine

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// strictShellArgs is the strict decoding decodeStrictFast stands in for.
func strictShellArgs(payload string) (shellArgs, bool) {
	var a shellArgs
	dec := json.NewDecoder(strings.NewReader(payload))
	dec.DisallowUnknownFields()
	if dec.Decode(&a) != nil || dec.More() {
		return shellArgs{}, false
	}
	return a, true
}

// Whenever the fast decoding answers, the strict one succeeds with the same
// arguments; the fast one declines whatever the strict one refuses or reads
// differently (unknown, case-folded or escaped keys, trailing values), and
// takes the arguments models send.
func TestDecodeStrictFastAgreesWithStrict(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		fast    bool // the fast path answers
	}{
		{"a model's arguments", `{"command":["bash","-lc","echo 1 > f1"]}`, true},
		{"every field, spaced", " {\n\t\"command\" : [\"ls\"], \"workdir\":\"sub\",\"timeout_ms\":1000,\"sandbox_permissions\":\"require_escalated\",\"justification\":\"needs \\\"net\\\" {x}\"}\r\n", true},
		{"timeout null", `{"command":["ls"],"timeout_ms":null}`, true},
		{"braces and quotes in strings", `{"command":["bash","-lc","echo '}' \"]\" , :"],"workdir":"a}b"}`, true},
		{"an unknown key", `{"command":["ls"],"cwd":"/"}`, false},
		{"a case-folded key", `{"Command":["ls"]}`, false},
		{"an escaped key", `{"comm\u0061nd":["ls"]}`, false},
		{"a second value", `{"command":["ls"]} {"command":["rm"]}`, false},
		{"a trailing bracket", `{"command":["ls"]}]`, false},
		{"a type error", `{"command":"ls"}`, false},
		{"an object where a string goes", `{"command":["ls"],"workdir":{"a":"}"}}`, false},
		{"null", `null`, false},
		{"not JSON", `{"command":["ls"]`, false},
		{"empty", ``, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got shellArgs
			fast := decodeStrictFast(tc.payload, &got, shellArgKey)
			if fast != tc.fast {
				t.Fatalf("fast path answered %v, want %v", fast, tc.fast)
			}
			if !fast {
				return
			}
			want, ok := strictShellArgs(tc.payload)
			if !ok {
				t.Fatalf("fast path took %q, which the strict decoder refuses", tc.payload)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("fast %+v, strict %+v", got, want)
			}
		})
	}
}
