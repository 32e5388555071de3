package telemetry

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
)

// ArgvMode says how much of a command leaves the machine.
type ArgvMode string

// Argv modes. ArgvRedacted (the default) sends the argv with what looks
// like a secret replaced; ArgvFull sends it as run; ArgvDigest sends only
// its digest.
const (
	ArgvRedacted ArgvMode = "redacted"
	ArgvFull     ArgvMode = "full"
	ArgvDigest   ArgvMode = "digest"
)

// Redacted is what replaces a secret.
const Redacted = "<redacted>"

// secretWord is a name that marks its value as a secret.
const secretWord = `[A-Za-z0-9_.-]*(?:key|KEY|Key|secret|SECRET|Secret|token|TOKEN|Token|password|PASSWORD|Password|passwd|PASSWD|auth|AUTH|Auth|credential|CREDENTIAL)[A-Za-z0-9_.-]*`

// The patterns are compiled on first use, not at start: every docket
// process links this package, most never redact (issue 26's lean start).
var (
	// NAME=value where NAME says secret (env assignments, --flag=value).
	assignRE = lazyRE(`(` + secretWord + `)=([^\s'"]+)`)
	// --secret-flag value inside a script.
	flagRE = lazyRE(`(--?` + secretWord + `)(\s+)([^\s'"-][^\s'"]*)`)
	// scheme://user:password@host
	userinfoRE = lazyRE(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@`)
	// Authorization headers: "Bearer xxx", "Basic xxx".
	bearerRE = lazyRE(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}`)
	// Well-known token shapes.
	tokenRE = lazyRE(`\b(?:sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{20,})\b`)
	// A flag that names a secret, given as its own argument.
	secretFlagRE = lazyRE(`^--?` + secretWord + `$`)
)

// lazyRE compiles expr once, when it is first used.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// RedactText replaces what looks like a secret in free text (a shell
// script, a reason, a why-line).
func RedactText(s string) string {
	s = userinfoRE().ReplaceAllString(s, "${1}"+Redacted+"@")
	s = assignRE().ReplaceAllString(s, "${1}="+Redacted)
	s = flagRE().ReplaceAllString(s, "${1}${2}"+Redacted)
	s = bearerRE().ReplaceAllString(s, "${1} "+Redacted)
	return tokenRE().ReplaceAllString(s, Redacted)
}

// RedactArgv redacts each argument, and the argument after a flag that
// names a secret (`--token xyz`).
func RedactArgv(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if i > 0 && secretFlagRE().MatchString(argv[i-1]) {
			out[i] = Redacted
			continue
		}
		out[i] = RedactText(a)
	}
	return out
}

// ArgvDigestOf is the digest of the argv as run: the same command on two
// machines has the same digest, whatever the redaction.
func ArgvDigestOf(argv []string) string {
	h := sha256.New()
	for _, a := range argv {
		h.Write([]byte(a))
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// redactor applies an ArgvMode to argv and to the texts that may quote it.
type redactor ArgvMode

func (r redactor) argv(argv []string) []string {
	switch ArgvMode(r) {
	case ArgvFull:
		return argv
	case ArgvDigest:
		return nil
	}
	return RedactArgv(argv)
}

func (r redactor) text(s string) string {
	if ArgvMode(r) == ArgvFull {
		return s
	}
	return RedactText(s)
}

// joinArgv renders argv for a single attribute.
func joinArgv(argv []string) string { return strings.Join(argv, " ") }
