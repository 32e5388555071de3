package cmdsafety

import "testing"

const tenCommandScript = "git status && git log -1 --oneline && ls -la | wc -l; cat README.md | head -20 && " +
	"grep -n foo main.go && pwd || find . -name '*.go' && sed -n 1,20p go.mod"

func BenchmarkIsKnownSafeTenCommandScript(b *testing.B) {
	argv := []string{"bash", "-lc", tenCommandScript}
	if cmds, ok := Commands(argv); !ok || len(cmds) != 10 {
		b.Fatalf("benchmark script splits into %d commands (ok=%v); want 10", len(cmds), ok)
	}
	b.ReportAllocs()
	for b.Loop() {
		if !IsKnownSafe(argv) {
			b.Fatal("script must be known-safe")
		}
	}
}

func BenchmarkIsDangerousTenCommandScript(b *testing.B) {
	argv := []string{"bash", "-lc", tenCommandScript}
	b.ReportAllocs()
	for b.Loop() {
		if IsDangerous(argv) {
			b.Fatal("script must not be dangerous")
		}
	}
}

// What policy asks of one call: both verdicts, every segment's verdicts and
// the literal commands, from one parse.
func BenchmarkAnalyzeEveryQuestionTenCommandScript(b *testing.B) {
	argv := []string{"bash", "-lc", tenCommandScript}
	b.ReportAllocs()
	for b.Loop() {
		s := Analyze(argv)
		if !s.KnownSafe() || s.Dangerous() || len(s.LiteralCommands()) != 10 {
			b.Fatal("script must be known-safe, not dangerous, with 10 literal commands")
		}
		for i := range 10 {
			if !s.Segment(i).KnownSafe() || s.Segment(i).Dangerous() {
				b.Fatalf("segment %d must be known-safe and not dangerous", i)
			}
		}
	}
}
