package cmdsafety

import (
	"reflect"
	"testing"
)

// scriptArgvs cover every shape a Script distinguishes: no wrapper, plain,
// dynamic, unparsable, empty, nested wrapper, and danger through each.
var scriptArgvs = [][]string{
	{}, {"ls", "-la"}, {"rm", "-rf", "x"}, {"sudo", "rm", "-f", "x"},
	{"bash", "-lc", "git status && ls | wc -l"},
	{"bash", "-lc", "ls && rm -rf x"},
	{"bash", "-lc", "echo 42 > f42"},
	{"bash", "-lc", `rm -rf "$T"; echo $(pwd)`},
	{"bash", "-lc", "echo 'a"},
	{"bash", "-lc", ""},
	{"sh", "-c", "ls; cat a"},
	{"zsh", "-lc", "echo =ls"},
	{"bash", "-lc", `sh -c "ls && rm -f y" && pwd`},
	{"bash", "-lc", `bash -lc 'git status'`},
	{"bash", "-lc", "echo '$HOME'"},
}

// answers asks every question of one Script, in the given order.
type answers struct {
	Cmds     [][]string
	CmdsOK   bool
	Segs     [][]string
	SegsOK   bool
	Literal  [][]string
	Safe     bool
	Danger   bool
	Shell    string
	Text     string
	IsShell  bool
	SegSafe  []bool
	SegDeath []bool
}

func askAll(s *Script, reverse bool) answers {
	var a answers
	steps := []func(){
		func() { a.Cmds, a.CmdsOK = s.Commands() },
		func() { a.Segs, a.SegsOK = s.Segments() },
		func() { a.Literal = s.LiteralCommands() },
		func() { a.Safe = s.KnownSafe() },
		func() { a.Danger = s.Dangerous() },
		func() { a.Shell, a.Text, a.IsShell = s.ShellScript() },
	}
	if reverse {
		for i := len(steps) - 1; i >= 0; i-- {
			steps[i]()
		}
	} else {
		for _, f := range steps {
			f()
		}
	}
	segs, _ := s.Segments()
	for i := range segs {
		a.SegSafe = append(a.SegSafe, s.Segment(i).KnownSafe())
		a.SegDeath = append(a.SegDeath, s.Segment(i).Dangerous())
	}
	return a
}

// fresh answers each question from its own package-level call, one parse
// per question, as callers did before Script existed.
func fresh(argv []string) answers {
	var a answers
	a.Cmds, a.CmdsOK = Commands(argv)
	a.Segs, a.SegsOK = Segments(argv)
	a.Literal = LiteralCommands(argv)
	a.Safe = IsKnownSafe(argv)
	a.Danger = IsDangerous(argv)
	a.Shell, a.Text, a.IsShell = ShellScript(argv)
	for _, seg := range a.Segs {
		a.SegSafe = append(a.SegSafe, IsKnownSafe(seg))
		a.SegDeath = append(a.SegDeath, IsDangerous(seg))
	}
	return a
}

func TestAScriptAnswersLikeOneCallPerQuestionInAnyOrder(t *testing.T) {
	for _, argv := range scriptArgvs {
		want := fresh(argv)
		for _, reverse := range []bool{false, true} {
			if got := askAll(Analyze(argv), reverse); !reflect.DeepEqual(got, want) {
				t.Errorf("Analyze(%q) asked in reverse=%v:\n got %+v\nwant %+v", argv, reverse, got, want)
			}
		}
	}
}

// LiteralCommands skips the walk for a plain script and returns its
// Commands; the walk must agree for every script that parses.
func TestLiteralCommandsAgreeWithAWalkOfTheParse(t *testing.T) {
	for _, argv := range scriptArgvs {
		checkLiteralAgainstWalk(t, argv)
	}
}

func checkLiteralAgainstWalk(t *testing.T, argv []string) {
	t.Helper()
	shell, script, ok := ShellScript(argv)
	if !ok {
		return
	}
	f, err := parse(shell, script)
	if err != nil {
		return
	}
	if walked, got := literalCommands(f), LiteralCommands(argv); !reflect.DeepEqual(walked, got) {
		t.Fatalf("LiteralCommands(%q) = %q; a walk of the parse finds %q", argv, got, walked)
	}
}

func TestSegmentAnalysesAreMadeOnceAndTheArgvIsItsOwnSegment(t *testing.T) {
	nested := Analyze([]string{"bash", "-lc", `sh -c "ls && rm -f y" && pwd`})
	if first, again := nested.Segment(0), nested.Segment(0); first != again {
		t.Fatal("Segment(0) analysed twice; want one Script per segment")
	}
	if !nested.Segment(0).Dangerous() || nested.Segment(1).Dangerous() {
		t.Fatal("the nested wrapper segment must be dangerous and pwd not")
	}
	for _, argv := range [][]string{{"ls"}, {"bash", "-lc", "echo $X"}, {}} {
		s := Analyze(argv)
		if s.Segment(0) != s {
			t.Errorf("Analyze(%q).Segment(0) is a new Script; want the receiver", argv)
		}
	}
}
