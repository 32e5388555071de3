package policy

import (
	"testing"

	"github.com/docket-engine/docket/events"
)

func TestClassify(t *testing.T) {
	ww := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, WritableRoots: []string{"/w", "/tmp"},
		ReadOnlySubpaths: []string{"/w/.git", "/w/.docket", "/w/.agents"}}
	wwNet := ww
	wwNet.Network = true
	ro := events.SandboxPlan{Mode: events.SandboxReadOnly}
	failed := func(stderr string) events.ExecOutcome { return events.ExecOutcome{ExitCode: 1, Stderr: stderr} }
	tests := []struct {
		name   string
		out    events.ExecOutcome
		plan   events.SandboxPlan
		cwd    string
		reason string // "" means no denial
		errno  string
		path   string
	}{
		// Denials.
		{"SIGSYS", events.ExecOutcome{ExitCode: 159, Signal: "SIGSYS"}, ww, "", DenialSignal, "", ""},
		{"touch outside the roots", failed("touch: cannot touch '/etc/x': Permission denied\n"), ww, "", DenialWriteDenied, "EACCES", "/etc/x"},
		{"git lock in .git", failed("fatal: Unable to create '/w/.git/index.lock': Read-only file system.\n"), ww, "", DenialReadOnlyPath, "EROFS", "/w/.git/index.lock"},
		{"relative path into .git", failed("mkdir: cannot create directory ‘.git/hooks’: Read-only file system\n"), ww, "/w", DenialReadOnlyPath, "EROFS", "/w/.git/hooks"},
		{"python", failed("PermissionError: [Errno 13] Permission denied: '/usr/lib/x.pyc'\n"), ww, "", DenialWriteDenied, "EACCES", "/usr/lib/x.pyc"},
		{"node", failed("Error: EACCES: permission denied, open '/home/u/.npmrc'\n"), ww, "", DenialWriteDenied, "EACCES", "/home/u/.npmrc"},
		{"go", failed("open /home/u/.cache/go-build/x: permission denied\n"), ww, "", DenialWriteDenied, "EACCES", "/home/u/.cache/go-build/x"},
		{"java", failed("java.io.FileNotFoundException: /opt/app/log.txt (Permission denied)\n"), ww, "", DenialWriteDenied, "EACCES", "/opt/app/log.txt"},
		{"shell redirection in read-only mode", failed("sh: 1: cannot create out.txt: Read-only file system\n"), ro, "/w", DenialWriteDenied, "EROFS", "/w/out.txt"},
		{"bash redirection, bare name", failed("bash: out.txt: Permission denied\n"), ro, "/w", DenialWriteDenied, "EACCES", "/w/out.txt"},
		{"write through a link out of the root", failed("attack failed: open /w/link: read-only file system\n"), ww, "", DenialWriteDenied, "EROFS", "/w/link"},
		{"network off: DNS", failed("curl: (6) Could not resolve host: example.com\n"), ww, "", DenialNetwork, "", ""},
		{"network off: socket", failed("dial tcp 127.0.0.1:80: socket: operation not permitted\n"), ww, "", DenialNetwork, "EPERM", ""},
		{"ptrace", failed("strace: ptrace(PTRACE_TRACEME, ...): Operation not permitted\n"), ww, "", DenialSyscall, "EPERM", ""},
		{"message on stdout only", events.ExecOutcome{ExitCode: 1, Stdout: "cp: cannot create regular file '/etc/y': Permission denied\n"}, ww, "", DenialWriteDenied, "EACCES", "/etc/y"},
		// Ordinary failures.
		{"success is never a denial", events.ExecOutcome{ExitCode: 0, Stderr: "touch: cannot touch '/etc/x': Permission denied\n"}, ww, "", "", "", ""},
		{"timeout is not a denial", events.ExecOutcome{ExitCode: 143, Signal: "SIGTERM", TimedOut: true, Stderr: "touch: cannot touch '/etc/x': Permission denied\n"}, ww, "", "", "", ""},
		{"unsandboxed runs are never denied", failed("touch: cannot touch '/etc/x': Permission denied\n"), events.SandboxPlan{Mode: events.SandboxNone}, "", "", "", ""},
		{"test names with sandbox and permission", failed("--- FAIL: TestPermission (0.00s)\n    sandbox_test.go:12: permission check failed\n"), ww, "", "", "", ""},
		{"file named permission_denied", failed("cat: sandbox/permission_denied.txt: No such file or directory\n"), ww, "", "", "", ""},
		{"file named Permission denied", failed("cat: 'Permission denied': No such file or directory\n"), ww, "", "", "", ""},
		{"sandbox directory in a path", failed("grep: /w/sandbox/permission.go: binary file matches\nerror: build failed\n"), ww, "", "", "", ""},
		{"usage error exit 2", events.ExecOutcome{ExitCode: 2, Stderr: "usage: tool [-x] file\n"}, ww, "", "", "", ""},
		{"command not found exit 127", events.ExecOutcome{ExitCode: 127, Stderr: "bash: frobnicate: command not found\n"}, ww, "", "", "", ""},
		{"not executable exit 126", events.ExecOutcome{ExitCode: 126, Stderr: "bash: ./run.sh: Permission denied\n"}, ro, "/w", "", "", ""},
		{"DAC error inside the workspace", failed("touch: cannot touch '/w/readonly.txt': Permission denied\n"), ww, "", "", "", ""},
		{"reading a protected file", failed("cat: /root/secret: Permission denied\n"), ro, "", "", "", ""},
		{"listing a directory", failed("ls: cannot open directory '/root': Permission denied\n"), ro, "", "", "", ""},
		{"find traversal", failed("find: ‘/proc/1/map_files’: Permission denied\n"), ro, "", "", "", ""},
		{"network on: DNS failure is ordinary", failed("curl: (6) Could not resolve host: example.invalid\n"), wwNet, "", "", "", ""},
		{"relative path unknown without cwd", failed("touch: cannot touch 'x': Permission denied\n"), ww, "", "", "", ""},
		{"/dev/null is writable", failed("sh: /dev/null: Permission denied\n"), ro, "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := ClassifyDenial(tt.out, tt.plan, tt.cwd)
			if tt.reason == "" {
				if ev != nil {
					t.Fatalf("classified as a denial: %+v", ev)
				}
				return
			}
			if ev == nil {
				t.Fatalf("not classified; want %s", tt.reason)
			}
			if ev.Reason != tt.reason || ev.Errno != tt.errno || ev.Path != tt.path {
				t.Errorf("got reason=%q errno=%q path=%q, want %q %q %q", ev.Reason, ev.Errno, ev.Path, tt.reason, tt.errno, tt.path)
			}
			if ev.Message == "" {
				t.Error("evidence has no message")
			}
		})
	}
}

func TestClassifyWithoutCwdInReadOnlyMode(t *testing.T) {
	ev := ClassifyDenial(events.ExecOutcome{ExitCode: 1, Stderr: "touch: cannot touch 'x': Read-only file system\n"}, events.SandboxPlan{Mode: events.SandboxReadOnly}, "")
	if ev == nil || ev.Reason != DenialWriteDenied || ev.Path != "x" {
		t.Fatalf("got %+v", ev)
	}
}

func FuzzClassify(f *testing.F) {
	f.Add("touch: cannot touch '/etc/x': Permission denied", 1, false)
	f.Add("cat: 'Permission denied': No such file or directory", 1, true)
	f.Add("x: : :: Read-only file system: '", 2, false)
	f.Fuzz(func(t *testing.T, stderr string, code int, network bool) {
		plan := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, WritableRoots: []string{"/w"}, ReadOnlySubpaths: []string{"/w/.git"}, Network: network}
		ev := ClassifyDenial(events.ExecOutcome{ExitCode: code, Stderr: stderr}, plan, "/w")
		if ev != nil && (ev.Reason == "" || ev.Message == "") {
			t.Fatalf("evidence without reason or message: %+v", ev)
		}
		if code == 0 && ev != nil {
			t.Fatalf("a successful run was classified: %+v", ev)
		}
	})
}

func TestClassifyLeavesLimitKillsAlone(t *testing.T) {
	plan := events.SandboxPlan{Mode: events.SandboxWorkspaceWrite, WritableRoots: []string{"/w"}}
	for _, killed := range []string{"memory_limit", "cpu_limit", "file_size_limit"} {
		out := events.ExecOutcome{ExitCode: 137, Signal: "SIGKILL", Killed: killed,
			Output: "cc: /etc/x: Permission denied\n"}
		if ev := ClassifyDenial(out, plan, "/w"); ev != nil {
			t.Errorf("%s: classified as a denial: %+v", killed, ev)
		}
	}
}
