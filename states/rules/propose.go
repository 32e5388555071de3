package rules

import (
	"path"
	"slices"
	"strings"

	"github.com/docket-engine/docket/states/cmdsafety"
)

// ProposeAmendmentScript is ProposeAmendment on an analysed argv, so that a
// caller asking other questions of the same script parses it only once.
func ProposeAmendmentScript(sc *cmdsafety.Script) []string {
	cmds, ok := sc.Commands()
	if !ok || len(cmds) == 0 {
		return nil
	}
	pick := cmds[0]
	for i, c := range cmds {
		// A plain script's commands are its segments, index for index.
		if !sc.Segment(i).KnownSafe() {
			pick = c
			break
		}
	}
	if OverBroad(pick) {
		return nil
	}
	return slices.Clone(pick)
}

// OverBroad reports whether saving pattern as an allow rule would allow too
// much: empty, a shell or interpreter with only options (`bash -lc`,
// `python3 -c`, `node -e`), git without a subcommand, or a wrapper (`env`,
// `sudo`, ...) that does not wrap a narrow command.
func OverBroad(pattern []string) bool {
	if len(pattern) == 0 {
		return true
	}
	for _, t := range pattern {
		if t == "" {
			return true
		}
	}
	name := path.Base(pattern[0])
	rest := pattern[1:]
	switch {
	case isShell(name), isInterpreter(name):
		return onlyOptions(rest)
	case name == "git":
		return !gitHasSubcommand(rest)
	case isWrapper(name):
		i := 0
		for i < len(rest) && (strings.HasPrefix(rest[i], "-") || strings.Contains(rest[i], "=") || startsWithDigit(rest[i])) {
			i++
		}
		return OverBroad(rest[i:])
	}
	return false
}

func onlyOptions(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

func startsWithDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

func gitHasSubcommand(args []string) bool {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" ||
			a == "--exec-path" || a == "--super-prefix" || a == "--config-env":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return true
		}
	}
	return false
}

func isShell(name string) bool {
	switch name {
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh",
		"pwsh", "powershell", "powershell.exe", "cmd", "cmd.exe":
		return true
	}
	return false
}

func isInterpreter(name string) bool {
	switch name {
	case "python", "python2", "python3", "py", "pythonw", "pyw", "pypy", "pypy3",
		"node", "nodejs", "deno", "bun", "perl", "ruby", "php", "lua", "luajit",
		"osascript", "Rscript", "julia", "tclsh", "awk", "gawk", "mawk", "nawk":
		return true
	}
	return strings.HasPrefix(name, "python3.")
}

func isWrapper(name string) bool {
	switch name {
	case "env", "sudo", "doas", "su", "xargs", "nohup", "nice", "time", "timeout",
		"command", "exec", "eval", "watch", "stdbuf", "ionice", "chroot", "setsid",
		"unshare", "nsenter", "flock", "builtin", "busybox":
		return true
	}
	return false
}
