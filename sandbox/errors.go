package sandbox

import (
	"fmt"
	"strings"
)

// UnavailableError says that a plan needs a sandbox layer this machine cannot
// provide; the command was not started.
type UnavailableError struct {
	// Missing names the layers that could not be had, e.g. "landlock", "mountns".
	Missing []string
	// Hint tells the user what they can do about it.
	Hint string
	// Err is the underlying cause, when there is one.
	Err error
}

func (e *UnavailableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sandbox unavailable: missing %s", strings.Join(e.Missing, ", "))
	if e.Err != nil {
		fmt.Fprintf(&b, " (%v)", e.Err)
	}
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// Hints, one per layer, naming what the user can change.
const (
	hintLandlock = "the kernel needs Landlock (Linux 5.13+, CONFIG_SECURITY_LANDLOCK=y and \"landlock\" in the lsm= boot parameter); otherwise run with --sandbox danger-full-access and approve each command"
	hintSeccomp  = "the kernel needs seccomp filters (CONFIG_SECCOMP_FILTER=y) and libseccomp must be installed (apt-get install libseccomp2)"
	hintMountNS  = "protected paths (.git, .docket, .agents, .codex) need a mount namespace: allow user namespaces (sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu) or set sandbox.require_protected_paths = false"
	hintPlatform = "the Docket sandbox runs on Linux only; use --sandbox danger-full-access to run without one"
)
