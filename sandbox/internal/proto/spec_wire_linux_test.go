package proto

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// TestSpecWireKeys pins the JSON keys of the spec and of a server's
// command: the per-command part (CallSpec) is one struct in the code and
// plain fields on the wire, so a helper of the same Version reads both.
func TestSpecWireKeys(t *testing.T) {
	full := CallSpec{Cwd: "/w", Path: "/p", Protected: []string{"/w/.git"}, Scanned: []string{"/w/.git"},
		UnixSockets: []string{"/s"}, UnixSocketsPartial: true, GitScan: "complete"}
	tests := []struct {
		name string
		v    any
		want []string
	}{
		{name: "helper spec", v: Spec{V: Version, Writable: []string{"/w"}, Network: true, Seccomp: []byte{1}, Binaries: []string{"/w/b"},
			Init: true, Layers: []string{"x"}, LoaderEnv: []string{"LD_X=1"}, Trace: true, Server: true, CallSpec: full},
			want: []string{"binaries", "cwd", "git_scan", "init", "layers", "limits", "loader_env", "mode", "network", "ns", "path",
				"protected", "scanned", "seccomp", "server", "trace", "unix_sockets", "unix_sockets_partial", "v", "writable"}},
		{name: "server command", v: ServerCommand{ID: 1, CallSpec: full, Argv: []string{"a"}, Env: []string{"E=1"}, Cgroups: 1, NoLifeline: true},
			want: []string{"argv", "cgroups", "cwd", "env", "git_scan", "id", "limits", "no_lifeline", "path", "protected", "scanned",
				"unix_sockets", "unix_sockets_partial"}},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		got := slices.Sorted(maps.Keys(m))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: keys %v, want %v", tt.name, got, tt.want)
		}
	}
}
