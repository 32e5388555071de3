package cmdsafety

import (
	"path"
	"strings"
)

// IsKnownSafe reports whether argv only reads: a known-safe command, or a
// shell wrapper whose script is plain and made only of known-safe commands.
func IsKnownSafe(argv []string) bool {
	return Analyze(argv).KnownSafe()
}

// hasShellMeta reports whether any word contains a character sequence that a
// shell could turn into an expansion or a redirection.
func hasShellMeta(argv []string) bool {
	for _, a := range argv {
		if strings.ContainsAny(a, "$`>") || strings.Contains(a, "<(") {
			return true
		}
	}
	return false
}

// programName returns the tool a program word names: itself when bare, its
// basename when it is an absolute path in a system directory, else "".
func programName(word string) string {
	if !strings.Contains(word, "/") {
		return word
	}
	dir, base := path.Split(word)
	switch strings.TrimSuffix(dir, "/") {
	case "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin":
		return base
	}
	return ""
}

// plainSafe reports whether a tool is safe with any arguments.
func plainSafe(name string) bool {
	switch name {
	case "cat", "cd", "cut", "echo", "expr", "false", "grep", "head", "id", "ls",
		"nl", "paste", "pwd", "rev", "seq", "stat", "tail", "tr", "true", "uname",
		"uniq", "wc", "which", "whoami", "numfmt", "tac":
		return true
	}
	return false
}

func isSafeExec(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	name := programName(argv[0])
	args := argv[1:]
	if plainSafe(name) {
		return true
	}
	switch name {
	case "find":
		return findIsSafe(args)
	case "rg":
		return rgIsSafe(args)
	case "git":
		return gitIsSafe(args)
	case "sed":
		return len(argv) <= 4 && len(args) >= 2 && args[0] == "-n" && isSedPrintRange(args[1])
	case "base64":
		return base64IsSafe(args)
	}
	return false
}

func findIsSafe(args []string) bool {
	for _, a := range args {
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf":
			return false
		}
	}
	return true
}

func rgIsSafe(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return true
		}
		if isLongOpt(a, "--pre") || isLongOpt(a, "--hostname-bin") || isLongOpt(a, "--search-zip") {
			return false
		}
		if shortCluster(a, 'z') {
			return false
		}
	}
	return true
}

func base64IsSafe(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return true
		}
		if isAbbrev(a, "--output") || shortCluster(a, 'o') {
			return false
		}
	}
	return true
}

// isLongOpt reports whether a is the long option opt, bare or with =value.
func isLongOpt(a, opt string) bool {
	return a == opt || strings.HasPrefix(a, opt+"=")
}

// isAbbrev reports whether a is the long option full or an unambiguous-looking
// abbreviation of it (getopt_long and git accept those), with or without a
// value.
func isAbbrev(a, full string) bool {
	if !strings.HasPrefix(a, "--") {
		return false
	}
	name, _, _ := strings.Cut(a, "=")
	return len(name) > 2 && strings.HasPrefix(full, name)
}

// shortCluster reports whether a is a cluster of short flags (`-abc`) that
// contains flag.
func shortCluster(a string, flag byte) bool {
	return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], flag) >= 0
}

// isSedPrintRange matches N p or N,M p: /^[0-9]+(,[0-9]+)?p$/.
func isSedPrintRange(s string) bool {
	core, ok := strings.CutSuffix(s, "p")
	if !ok {
		return false
	}
	a, b, two := strings.Cut(core, ",")
	if !allDigits(a) {
		return false
	}
	return !two || allDigits(b)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
