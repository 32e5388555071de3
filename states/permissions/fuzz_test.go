package permissions

import (
	"errors"
	"testing"
)

// FuzzResolve feeds arbitrary keys and values to the profile parser and the
// decisions: an error must be an *Error, never a panic.
func FuzzResolve(f *testing.F) {
	f.Add("/a/**/b", "none", "*.example.com", "allow", "/a/x/b")
	f.Add("~/.ssh", "read", "example.com:80", "deny", "/home/u/.ssh")
	f.Add(":project_roots", "write", "bücher.de.", "allow", "/work/proj/x")
	f.Add("/[", "none", "*", "allow", "")
	f.Fuzz(func(t *testing.T, key, access, domain, verdict, probe string) {
		on := true
		p := Profile{Filesystem: map[string]any{key: access}, Network: &NetworkTable{Enabled: &on, Domains: map[string]string{domain: verdict}}}
		r, err := Resolve("p", map[string]Profile{"p": p}, testEnv)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		_ = r.Access(probe)
		_ = r.Network.Decide(probe)
		_ = r.Network.Decide(domain)
	})
}
