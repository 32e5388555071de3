package proto

import (
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

func TestHelperArgsRoundTrip(t *testing.T) {
	spec := Spec{V: Version, Seccomp: make([]byte, 16), Mode: events.SandboxWorkspaceWrite, Writable: []string{"/w"},
		NS: Namespaces{User: true, Mount: true}, CallSpec: CallSpec{Cwd: "/w", Path: "/usr/bin/git", Protected: []string{"/w/.git"}}}
	args, err := Args("/bin/docket", spec, []string{"git", "status"})
	if err != nil {
		t.Fatal(err)
	}
	got, argv, err := Parse(args)
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != spec.Path || len(got.Protected) != 1 || !got.NS.Mount || strings.Join(argv, " ") != "git status" {
		t.Fatalf("round trip lost data: %+v %v", got, argv)
	}
}

func TestParseHelperArgsRejects(t *testing.T) {
	good := `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"read-only","ns":{},"cwd":"/","path":"/bin/true"}`
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"too short", []string{"docket", HelperArg}, "usage"},
		{"no separator", []string{"docket", HelperArg, good, "x", "true"}, "usage"},
		{"bad JSON", []string{"docket", HelperArg, "{", "--", "true"}, "helper spec"},
		{"unknown field", []string{"docket", HelperArg, `{"mode":"read-only","x":1}`, "--", "true"}, "unknown field"},
		{"unknown mode", []string{"docket", HelperArg, `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"none","cwd":"/","path":"/bin/true"}`, "--", "true"}, `mode "none"`},
		{"relative path", []string{"docket", HelperArg, `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"read-only","cwd":"/","path":"true"}`, "--", "true"}, "absolute"},
		{"read-only with roots", []string{"docket", HelperArg, `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"read-only","writable":["/w"],"cwd":"/","path":"/bin/true"}`, "--", "true"}, "no writable roots"},
		{"protected outside roots", []string{"docket", HelperArg, `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"workspace-write","writable":["/w"],"protected":["/x/.git"],"ns":{"mount":true},"cwd":"/","path":"/bin/true"}`, "--", "true"}, "not under a writable root"},
		{"protected without mountns", []string{"docket", HelperArg, `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"workspace-write","writable":["/w"],"protected":["/w/.git"],"cwd":"/","path":"/bin/true"}`, "--", "true"}, "mount namespace"},
		{"other protocol version", []string{"docket", HelperArg, `{"v":99,"seccomp":"AAAAAAAAAAA=","mode":"read-only","cwd":"/","path":"/bin/true"}`, "--", "true"}, "protocol version 99"},
		{"no seccomp filter", []string{"docket", HelperArg, `{"v":4,"mode":"read-only","cwd":"/","path":"/bin/true"}`, "--", "true"}, "sock_filter"},
		{"torn seccomp filter", []string{"docket", HelperArg, `{"v":4,"seccomp":"AAAA","mode":"read-only","cwd":"/","path":"/bin/true"}`, "--", "true"}, "sock_filter"},
		{"trailing data", []string{"docket", HelperArg, good + "{}", "--", "true"}, "trailing"},
		{"binary outside the roots", []string{"docket", HelperArg, `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"workspace-write","writable":["/w"],"binaries":["/usr/bin/docket"],"ns":{"mount":true},"cwd":"/","path":"/bin/true"}`, "--", "true"}, "not under a writable root"},
		{"binaries without mountns", []string{"docket", HelperArg, `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"workspace-write","writable":["/w"],"binaries":["/w/docket"],"cwd":"/","path":"/bin/true"}`, "--", "true"}, "mount namespace"},
		{"init stage without a PID namespace", []string{"docket", HelperArg, `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"read-only","init":true,"layers":["seccomp"],"cwd":"/","path":"/bin/true"}`, "--", "true"}, "init stage"},
		{"layers outside the init stage", []string{"docket", HelperArg, `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"read-only","layers":["seccomp"],"cwd":"/","path":"/bin/true"}`, "--", "true"}, "only passed to the init stage"},
		{"unclean root", []string{"docket", HelperArg, `{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"workspace-write","writable":["/w/../etc"],"cwd":"/","path":"/bin/true"}`, "--", "true"}, "clean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse(tt.args)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func FuzzParseHelperArgs(f *testing.F) {
	f.Add(`{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"workspace-write","writable":["/w"],"protected":["/w/.git"],"ns":{"mount":true},"cwd":"/w","path":"/bin/true"}`)
	f.Add(`{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"read-only","cwd":"/","path":"/bin/true"}`)
	f.Add(`{"v":4,"seccomp":"AAAAAAAAAAA=","mode":"read-only","cwd":"/\u0000","path":"/bin/true"}`)
	f.Fuzz(func(t *testing.T, spec string) {
		s, argv, err := Parse([]string{"docket", HelperArg, spec, "--", "true"})
		if err != nil {
			return
		}
		if s.Validate() != nil || len(argv) != 1 {
			t.Fatalf("accepted an invalid spec: %+v", s)
		}
		args, err := Args("docket", s, argv)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := Parse(args); err != nil {
			t.Fatalf("re-encoded spec rejected: %v", err)
		}
	})
}
