package cmdsafety

import "strings"

// gitUnsafeLong reports whether a is (an abbreviation of) a git option that
// can run a program, write a file or point git at another repository or
// configuration.
func gitUnsafeLong(a string) bool {
	for _, full := range [...]string{
		"--config-env", "--exec-path", "--git-dir", "--namespace", "--super-prefix",
		"--work-tree", "--output", "--ext-diff", "--textconv", "--exec", "--paginate",
	} {
		if isAbbrev(a, full) {
			return true
		}
	}
	return false
}

// gitIsSafe implements `git status|log|diff|show|branch` without the
// exceptions of DESIGN.md 3.2; args excludes the program word.
func gitIsSafe(args []string) bool {
	for _, a := range args {
		if a == "-c" || (strings.HasPrefix(a, "-c") && len(a) > 2) || gitUnsafeLong(a) {
			return false
		}
	}
	i := 0
	for i < len(args) {
		a := args[i]
		if a == "-C" {
			i += 2
			continue
		}
		if a == "-p" {
			// -p before the subcommand is --paginate.
			return false
		}
		if strings.HasPrefix(a, "-") {
			i++
			continue
		}
		break
	}
	if i >= len(args) {
		return false
	}
	sub, rest := args[i], args[i+1:]
	switch sub {
	case "status", "log", "diff", "show":
		return true
	case "branch":
		return gitBranchListsOnly(rest)
	}
	return false
}

// gitBranchListsOnly reports whether `git branch` with these arguments only
// lists: no arguments, or only listing flags.
func gitBranchListsOnly(args []string) bool {
	for _, a := range args {
		switch a {
		case "--list", "-l", "--show-current", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose":
			continue
		}
		if strings.HasPrefix(a, "--format=") {
			continue
		}
		return false
	}
	return true
}
