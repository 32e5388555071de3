package telemetry

import (
	"slices"
	"testing"
)

func TestRedactionHidesWhatLooksLikeASecret(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want []string
	}{
		{"plain command kept", []string{"go", "test", "./..."}, []string{"go", "test", "./..."}},
		{"env assignment", []string{"env", "GITHUB_TOKEN=ghx123", "gh", "pr"}, []string{"env", "GITHUB_TOKEN=<redacted>", "gh", "pr"}},
		{"flag with =", []string{"curl", "--api-key=abc123"}, []string{"curl", "--api-key=<redacted>"}},
		{"flag then value", []string{"login", "--password", "hunter2"}, []string{"login", "--password", "<redacted>"}},
		{"userinfo in a URL", []string{"git", "clone", "https://bob:pw@example.com/r.git"}, []string{"git", "clone", "https://<redacted>@example.com/r.git"}},
		{"inside a script", []string{"bash", "-lc", "curl -H 'Authorization: Bearer abcdefgh12345' --token xyz https://x"},
			[]string{"bash", "-lc", "curl -H 'Authorization: Bearer <redacted>' --token <redacted> https://x"}},
		{"known token shapes", []string{"echo", "sk-abcdefghijklmnop1234", "AKIAABCDEFGHIJKLMNOP"}, []string{"echo", "<redacted>", "<redacted>"}},
		{"words that only contain key stay", []string{"grep", "-r", "monkey", "."}, []string{"grep", "-r", "monkey", "."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RedactArgv(tc.in); !slices.Equal(got, tc.want) {
				t.Fatalf("RedactArgv(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestArgvDigestSeparatesArguments(t *testing.T) {
	if ArgvDigestOf([]string{"a b"}) == ArgvDigestOf([]string{"a", "b"}) {
		t.Fatal("the digest does not tell one argument from two")
	}
	if got, want := ArgvDigestOf([]string{"ls"}), "sha256:013b7034251b9ad7d65e5ef4540acf39719ceb287c749afd2248d76c61d91b7d"; got != want {
		t.Fatalf("digest of [ls] = %q, want %q (sha256 of each argument and a NUL)", got, want)
	}
}
