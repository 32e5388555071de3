package cmdsafety

// Segments is Commands with the fallback applied: a dynamic script is one
// opaque command, the argv itself.
func Segments(argv []string) (segments [][]string, plain bool) {
	return Analyze(argv).Segments()
}

// LiteralCommands returns, for a shell wrapper whose script parses, every
// simple command anywhere in it (inside substitutions, conditionals, loops,
// subshells) whose program name is a literal word. Each command is cut at its
// first non-literal word. It is used to find forced rm and prompt/forbidden
// rules in scripts too dynamic to split. A non-wrapper argv yields nil.
func LiteralCommands(argv []string) [][]string {
	return Analyze(argv).LiteralCommands()
}
