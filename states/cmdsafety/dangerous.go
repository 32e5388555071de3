package cmdsafety

import (
	"path"
	"strings"
)

// IsDangerous reports whether argv forcibly removes files (`rm -f`, `rm -rf`,
// `rm --force`, any short-flag cluster with f), directly, through a wrapper
// such as sudo, or anywhere in a shell script.
func IsDangerous(argv []string) bool {
	return Analyze(argv).Dangerous()
}

func dangerousExec(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	name := path.Base(argv[0])
	if name == "rm" {
		return rmForced(argv[1:])
	}
	if !isWrapper(name) {
		return false
	}
	// Walk past the wrappers, their options, option values, env assignments
	// and durations to the wrapped program. Linear, so nested wrappers cannot
	// make it slow.
	afterOption := false
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		base := path.Base(a)
		switch {
		case base == "rm":
			return rmForced(argv[i+1:])
		case strings.HasPrefix(a, "-"):
			afterOption = !strings.Contains(a, "=")
			continue
		case isWrapper(base), strings.Contains(a, "="), a != "" && a[0] >= '0' && a[0] <= '9', afterOption:
			afterOption = false
			continue
		default:
			return false
		}
	}
	return false
}

// isWrapper reports whether a program runs its arguments as a command.
func isWrapper(name string) bool {
	switch name {
	case "sudo", "doas", "env", "command", "exec", "nohup", "nice", "time", "timeout", "xargs":
		return true
	}
	return false
}

func rmForced(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--force" || shortCluster(a, 'f') {
			return true
		}
	}
	return false
}
