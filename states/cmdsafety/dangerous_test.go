package cmdsafety

import "testing"

func TestForcedRemovalIsDangerousInEverySpelling(t *testing.T) {
	for _, argv := range [][]string{
		{"rm", "-f", "x"}, {"rm", "-rf", "/"}, {"rm", "-fr", "x"}, {"rm", "-Rf", "x"},
		{"rm", "-r", "-f", "x"}, {"rm", "--force", "x"}, {"rm", "x", "-f"}, {"/bin/rm", "-rf", "x"},
		{"sudo", "rm", "-rf", "x"}, {"sudo", "-u", "root", "rm", "-f", "x"}, {"sudo", "-E", "rm", "-f", "x"},
		{"env", "A=1", "rm", "-f", "x"}, {"timeout", "10", "rm", "-rf", "x"}, {"xargs", "rm", "-f"},
		{"sudo", "nice", "-n", "5", "rm", "-f", "x"},
		{"bash", "-lc", "ls && rm -rf x"},
		{"bash", "-lc", `rm -rf "$TARGET" >/dev/null`},
		{"bash", "-lc", "if test -d x; then rm --force x; fi"},
		{"bash", "-lc", `echo "$(rm -rf /tmp/x)"`},
		{"bash", "-lc", "for t in a b; do sudo rm -r -f $t; done"},
	} {
		if !IsDangerous(argv) {
			t.Errorf("IsDangerous(%q) = false; want true", argv)
		}
	}
}

func TestUnforcedOrNonLiteralRemovalIsNotDangerous(t *testing.T) {
	for _, argv := range [][]string{
		{"rm", "x"}, {"rm", "-r", "x"}, {"rm", "--", "-f"}, {"ls", "-f"}, {"sudo", "ls", "-f"},
		{"bash", "-lc", "echo 'rm -rf x'"}, {"bash", "-lc", "cmd=rm; $cmd -rf x"},
		{"bash", "-lc", "if then rm -rf x"}, {"sudo"}, {"env", ""}, {},
	} {
		if IsDangerous(argv) {
			t.Errorf("IsDangerous(%q) = true; want false", argv)
		}
	}
}
