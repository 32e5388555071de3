package policy

import (
	"path/filepath"
	"strings"

	"github.com/docket-engine/docket/events"
)

// Denial reasons in events.DenialEvidence.Reason.
const (
	DenialSignal       = "signal"         // killed by SIGSYS (seccomp)
	DenialWriteDenied  = "write_denied"   // a write outside the writable roots
	DenialReadOnlyPath = "read_only_path" // a write into a protected subpath
	DenialNetwork      = "network"        // network use with the network off
	DenialSyscall      = "syscall_denied" // a syscall the filter refuses (ptrace, io_uring)
)

// errnoPhrases maps the C library's messages to errno names.
var errnoPhrases = [...]struct{ phrase, errno string }{
	{"read-only file system", "EROFS"},
	{"permission denied", "EACCES"},
	{"operation not permitted", "EPERM"},
}

// readContexts mark a failure to read or look up, which the sandbox never
// causes (it lets the command read everything).
var readContexts = [...]string{
	"cannot open directory", "cannot access", "cannot read", "for reading",
	"cannot stat", "cannot execute", "can't open file", "unable to read",
}

// readOnlyTools only read the files they name, so their permission errors
// are the file's own.
var readOnlyTools = [...]string{
	"cat", "find", "grep", "egrep", "fgrep", "rg", "ls", "head", "tail", "less",
	"more", "wc", "du", "stat", "file", "diff", "cmp", "md5sum", "sha1sum",
	"sha256sum", "od", "xxd", "strings", "readlink", "realpath", "tree",
}

// networkPhrases are failures a command sees when it has no network.
var networkPhrases = [...]string{
	"network is unreachable", "could not resolve host", "couldn't resolve host",
	"temporary failure in name resolution", "name or service not known",
	"no address associated with hostname", "failed to establish a new connection",
	"couldn't connect to server", "could not connect to server",
	"getaddrinfo eai_again", "socket: operation not permitted",
	"dial tcp", "dial udp",
}

// syscallWords name operations the seccomp filter refuses.
var syscallWords = [...]string{"ptrace", "io_uring", "perf_event_open", "bpf(", "keyctl", "userfaultfd"}

// ClassifyDenial reports whether a failed sandboxed run of a command that ran in
// cwd was denied by the sandbox, with the evidence, or nil for an ordinary
// result. It fires on SIGSYS,
// or on an EROFS/EACCES/EPERM message (in message position, not inside a
// file name) about a path the plan forbade writing, or on a network failure
// with the network off, or on EPERM from a syscall the filter refuses. A
// successful or timed-out run is never a denial, and an exit status alone
// (2, 126, 127) is not evidence.
func ClassifyDenial(out events.ExecOutcome, plan events.SandboxPlan, cwd string) *events.DenialEvidence {
	if !plan.Sandboxed() || out.TimedOut || out.Killed != "" {
		// A resource limit that ended the command is its own outcome.
		return nil
	}
	if out.Signal == "SIGSYS" {
		return &events.DenialEvidence{Reason: DenialSignal, Signal: "SIGSYS", Message: "killed by SIGSYS (seccomp)"}
	}
	if out.ExitCode == 0 && out.Signal == "" {
		return nil
	}
	text := out.Output
	if text == "" {
		text = out.Stderr + "\n" + out.Stdout
	}
	lines := strings.Split(text, "\n")
	if len(lines) > 5000 {
		lines = append(lines[:2500], lines[len(lines)-2500:]...)
	}
	for _, line := range lines {
		if len(line) > 4096 {
			line = line[:4096]
		}
		if ev := classifyLine(line, out.ExitCode, plan, cwd); ev != nil {
			return ev
		}
	}
	return nil
}

func classifyLine(line string, exitCode int, plan events.SandboxPlan, cwd string) *events.DenialEvidence {
	lower := strings.ToLower(line)
	message := strings.TrimSpace(line)
	if !plan.Network {
		for _, p := range networkPhrases {
			if strings.Contains(lower, p) {
				return &events.DenialEvidence{Reason: DenialNetwork, Errno: errnoOf(lower), Message: message}
			}
		}
	}
	errno := errnoOf(lower)
	if errno == "" {
		return nil
	}
	if errno != "EROFS" {
		if exitCode == 126 || isReadContext(lower) {
			return nil
		}
	}
	if errno == "EPERM" {
		for _, w := range syscallWords {
			if strings.Contains(lower, w) {
				return &events.DenialEvidence{Reason: DenialSyscall, Errno: errno, Message: message}
			}
		}
	}
	for _, p := range candidatePaths(line) {
		abs := p
		if !filepath.IsAbs(abs) {
			if cwd == "" {
				if plan.Mode == events.SandboxReadOnly {
					return &events.DenialEvidence{Reason: DenialWriteDenied, Errno: errno, Path: p, Message: message}
				}
				continue
			}
			abs = filepath.Join(cwd, abs)
		}
		abs = filepath.Clean(abs)
		if reason := forbiddenWrite(abs, plan); reason != "" {
			return &events.DenialEvidence{Reason: reason, Errno: errno, Path: abs, Message: message}
		}
		if errno == "EROFS" && abs != "/dev/null" {
			// Inside a writable root nothing is read-only but the
			// protected paths, so EROFS there means a link that leads
			// out of the root (or into a protected path).
			return &events.DenialEvidence{Reason: DenialWriteDenied, Errno: errno, Path: abs, Message: message}
		}
	}
	return nil
}

// errnoOf finds an errno message in message position: after ": ", "] ",
// "(" or at the start, and not followed by more of a name. "cat:
// 'permission denied.txt': No such file" has no errno of interest.
func errnoOf(lower string) string {
	for _, e := range errnoPhrases {
		for from := 0; ; {
			i := strings.Index(lower[from:], e.phrase)
			if i < 0 {
				break
			}
			i += from
			from = i + len(e.phrase)
			if !messageStart(lower, i) || !messageEnd(lower, from) {
				continue
			}
			return e.errno
		}
	}
	return ""
}

func messageStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	if s[i-1] == '(' {
		return true
	}
	return i >= 2 && (s[i-2:i] == ": " || s[i-2:i] == "] ")
}

func messageEnd(s string, j int) bool {
	if j == len(s) {
		return true
	}
	switch s[j] {
	case ':', ')', ',', ';', '\r', '"':
		return true
	case ' ':
		return true
	case '.':
		return j+1 == len(s) || s[j+1] == ' '
	}
	return false
}

func isReadContext(lower string) bool {
	for _, c := range readContexts {
		if strings.Contains(lower, c) {
			return true
		}
	}
	prog, _, ok := strings.Cut(lower, ":")
	if !ok {
		return false
	}
	prog = filepath.Base(strings.TrimSpace(prog))
	for _, t := range readOnlyTools {
		if prog == t {
			return true
		}
	}
	return false
}

// candidatePaths extracts what may be the path a message is about: quoted
// strings, words containing a slash, and the word right before the errno
// message ("bash: x: Permission denied", "sh: cannot create x.txt: ...").
func candidatePaths(line string) []string {
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" || strings.Contains(s, "://") || len(s) > 1024 {
			return
		}
		for _, x := range out {
			if x == s {
				return
			}
		}
		out = append(out, s)
	}
	for _, q := range quoted(line) {
		add(q)
	}
	for _, w := range strings.Fields(line) {
		w = strings.Trim(w, ":,;()[]{}<>'\"`‘’“”")
		if strings.Contains(w, "/") {
			add(w)
		}
	}
	segs := strings.Split(line, ": ")
	for i := 1; i < len(segs); i++ {
		if errnoOf(strings.ToLower(segs[i])) != "" {
			prev := strings.Trim(segs[i-1], "'\"`‘’“” ")
			if i-1 == 0 || prev == "" || strings.ContainsAny(prev, "()[]{}=") {
				continue
			}
			if !strings.ContainsAny(prev, " \t") {
				add(prev)
			} else if f := strings.Fields(prev); strings.ContainsAny(f[len(f)-1], "./") {
				// dash: "cannot create out.txt: Read-only file system"
				add(f[len(f)-1])
			}
		}
	}
	return out
}

// quoted returns the text inside '...', "...", `...', ‘...’ and “...”.
func quoted(line string) []string {
	pairs := [...][2]string{{"'", "'"}, {"\"", "\""}, {"`", "'"}, {"‘", "’"}, {"“", "”"}}
	var out []string
	for _, p := range pairs {
		rest := line
		for {
			i := strings.Index(rest, p[0])
			if i < 0 {
				break
			}
			rest = rest[i+len(p[0]):]
			j := strings.Index(rest, p[1])
			if j < 0 {
				break
			}
			out = append(out, rest[:j])
			rest = rest[j+len(p[1]):]
		}
	}
	return out
}

// forbidden says why the plan forbids writing p, or "" if it allows it.
func forbiddenWrite(p string, plan events.SandboxPlan) string {
	if p == "/dev/null" {
		return ""
	}
	for _, ro := range plan.ReadOnlySubpaths {
		if events.Within(p, filepath.Clean(ro)) {
			return DenialReadOnlyPath
		}
	}
	if plan.Mode == events.SandboxReadOnly {
		return DenialWriteDenied
	}
	for _, r := range plan.WritableRoots {
		if events.Within(p, filepath.Clean(r)) {
			return ""
		}
	}
	return DenialWriteDenied
}
