package sandbox

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/docket-engine/docket/events"
)

// seatbeltBase is what every sandboxed process on macOS needs: run and fork
// programs, signal its own sandbox, read system state and talk to the few services that libSystem calls into.
const seatbeltBase = `(version 1)

; Closed by default: what is not allowed below is denied.
(deny default)

; Run programs; children inherit this profile.
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))

; Reading is allowed everywhere.
(allow file-read*)

; Writing /dev/null.
(allow file-write-data
  (require-all (path "/dev/null") (vnode-type CHARACTER-DEVICE)))
(allow file-ioctl (literal "/dev/null"))

; System information and the services libSystem needs.
(allow sysctl-read)
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.logd")
  (global-name "com.apple.diagnosticd"))
(allow ipc-posix-sem)
(allow ipc-posix-shm-read-data)
`

// SeatbeltProfile returns the macOS sandbox-exec profile for plan: deny by
// default, read everything, write the writable roots except their
// protected subpaths, and network only when the plan allows it. Mode
// "none" has no profile and returns "". Paths are used as given, plus their
// /private twin for /tmp, /var and /etc, which are symlinks on macOS;
// Seatbelt matches resolved paths.
func SeatbeltProfile(plan events.SandboxPlan) string {
	if !plan.Sandboxed() {
		return ""
	}
	var b strings.Builder
	b.WriteString(seatbeltBase)
	if plan.Mode == ModeWorkspaceWrite && len(plan.WritableRoots) > 0 {
		b.WriteString("\n; Writable roots, minus the protected paths under them.\n")
		for _, root := range seatbeltPaths(plan.WritableRoots) {
			var protected []string
			for _, ro := range seatbeltPaths(plan.ReadOnlySubpaths) {
				if events.Within(ro, root) && ro != root {
					protected = append(protected, ro)
				}
			}
			if len(protected) == 0 {
				b.WriteString("(allow file-write* (subpath " + sbplString(root) + "))\n")
				continue
			}
			b.WriteString("(allow file-write*\n  (require-all\n    (subpath " + sbplString(root) + ")")
			for _, ro := range protected {
				b.WriteString("\n    (require-not (subpath " + sbplString(ro) + "))")
			}
			b.WriteString("))\n")
		}
	}
	if plan.Network {
		b.WriteString("\n; Network allowed.\n(allow network-outbound)\n(allow network-inbound)\n(allow system-socket)\n")
		b.WriteString("(allow mach-lookup\n  (global-name \"com.apple.SystemConfiguration.configd\")\n  (global-name \"com.apple.dnssd.service\"))\n")
	} else {
		b.WriteString("\n; Network denied (deny default covers network*).\n")
	}
	return b.String()
}

// seatbeltPaths cleans, deduplicates and sorts paths, adding the /private
// twin of those under the macOS symlinks.
func seatbeltPaths(in []string) []string {
	seen := map[string]bool{}
	for _, p := range in {
		if !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		seen[p] = true
		for _, link := range []string{"/tmp", "/var", "/etc"} {
			if events.Within(p, link) {
				seen["/private"+p] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// sbplString quotes s as an SBPL string literal.
func sbplString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
