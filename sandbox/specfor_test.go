package sandbox

import (
	"reflect"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/sandbox/gitwalk"
	"github.com/docket-engine/docket/sandbox/internal/proto"
)

// TestSpecForIsThePlanAndTheFacts: a call's spec is its plan and what the
// host said, put together the same way every time; nothing else goes in.
func TestSpecForIsThePlanAndTheFacts(t *testing.T) {
	ww := events.SandboxPlan{Mode: ModeWorkspaceWrite, WritableRoots: []string{"/w", "/gone"},
		ReadOnlySubpaths: []string{"/w/.git", "/w/.docket", "/elsewhere/.git"},
		Limits:           events.ResourceLimits{MaxCPUSeconds: 7, MaxFileSizeMB: 1, MaxProcesses: 9}}
	facts := hostFacts{cwd: "/w/sub", path: "/usr/bin/true", seccomp: []byte{1, 2, 3, 4, 5, 6, 7, 8},
		roots: []string{"/w"}, binaries: []string{"/w/bin/docket"}, absentBinaries: []string{"/w/bin/docket-sandbox-helper"},
		walked: true, git: gitwalk.Set{Held: []string{"/w/.git"}, Found: []string{"/w/nested/.git"},
			Targets: []string{"/w/wt-target", "/w/planted"}, Unseen: []string{"/w/big/cut"}, Complete: false},
		targetsExisting: map[string]bool{"/w/wt-target": true},
		sockets:         []string{"/run/docker.sock"}, socketsComplete: true}
	tests := []struct {
		name  string
		plan  events.SandboxPlan
		facts hostFacts
		want  Spec
	}{
		{name: "workspace-write: the roots that exist, their protected paths, the walk's finds and the sockets",
			plan: ww, facts: facts,
			want: Spec{V: proto.Version, Mode: ModeWorkspaceWrite, Writable: []string{"/w"}, Seccomp: facts.seccomp,
				Binaries: []string{"/w/bin/docket"},
				CallSpec: proto.CallSpec{Cwd: "/w/sub", Path: "/usr/bin/true",
					Protected:   []string{"/w/.git", "/w/.docket", "/w/bin/docket-sandbox-helper", "/w/nested/.git", "/w/wt-target", "/w/planted"},
					Scanned:     []string{"/w/nested/.git", "/w/wt-target"},
					Unseen:      []string{"/w/big/cut"},
					UnixSockets: []string{"/run/docker.sock"}, GitScan: proto.GitScanPartial,
					Limits: proto.Limits{CPUSeconds: 7, FileSizeBytes: 1 << 20, Processes: 9}}}},
		{name: "read-only with the network on: no roots, no walk, no sockets",
			plan:  events.SandboxPlan{Mode: ModeReadOnly, Network: true},
			facts: hostFacts{cwd: "/w", path: "/bin/ls", seccomp: []byte{1, 2, 3, 4, 5, 6, 7, 8}, sockets: []string{"/s"}},
			want: Spec{V: proto.Version, Mode: ModeReadOnly, Network: true, Seccomp: []byte{1, 2, 3, 4, 5, 6, 7, 8},
				CallSpec: proto.CallSpec{Cwd: "/w", Path: "/bin/ls"}}},
		{name: "a socket list cut short says so",
			plan:  events.SandboxPlan{Mode: ModeReadOnly},
			facts: hostFacts{cwd: "/w", path: "/bin/ls", sockets: []string{"/s"}},
			want: Spec{V: proto.Version, Mode: ModeReadOnly,
				CallSpec: proto.CallSpec{Cwd: "/w", Path: "/bin/ls", UnixSockets: []string{"/s"}, UnixSocketsPartial: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := specFor(tt.plan, tt.facts)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("specFor:\n got %+v\nwant %+v", got, tt.want)
			}
			if again := specFor(tt.plan, tt.facts); !reflect.DeepEqual(again, got) {
				t.Errorf("a second build differs: %+v", again)
			}
		})
	}
}
