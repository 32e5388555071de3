package patch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel causes carried by FileError and HunkError; test them with errors.Is.
var (
	ErrMissing    = errors.New("file does not exist")
	ErrExists     = errors.New("file already exists")
	ErrNotRegular = errors.New("not a regular file")
	ErrBinary     = errors.New("file contains NUL bytes; apply_patch edits text files only")
	ErrNotUTF8    = errors.New("file is not valid UTF-8; apply_patch edits UTF-8 text files only")
	ErrNoMatch    = errors.New("lines not found")
	ErrAmbiguous  = errors.New("lines match more than one place")
	ErrConflict   = errors.New("file changed on disk after the patch was verified")
)

// ParseError is a malformed patch text: the line and what was expected there.
type ParseError struct {
	Line int // 1-based line in the patch text
	Msg  string
}

// Error implements error.
func (e *ParseError) Error() string {
	return fmt.Sprintf("invalid patch: line %d: %s", e.Line, e.Msg)
}

// FileError is an operation that cannot be carried out on its file.
type FileError struct {
	Kind ChangeKind
	Path string // as written in the patch
	Line int    // the operation's header line in the patch
	Err  error
}

// Error implements error.
func (e *FileError) Error() string {
	return fmt.Sprintf("%s %s (patch line %d): %v", opName(e.Kind), e.Path, e.Line, e.Err)
}

// Unwrap returns the cause.
func (e *FileError) Unwrap() error { return e.Err }

// HunkError is a hunk of an Update whose position in the file cannot be
// determined: its lines match nowhere, or match several places.
type HunkError struct {
	Path    string   // as written in the patch
	Hunk    int      // 1-based index of the hunk within its Update File
	Line    int      // the hunk's first line in the patch text
	Context bool     // the lines searched for are an `@@` context line
	Where   string   // where they were searched for, e.g. "after hunk 1"; may be empty
	Lines   []string // the lines searched for
	Matches []int    // 1-based file lines where they match, when ambiguous
	Err     error    // ErrNoMatch or ErrAmbiguous
}

// Bounds on how much of a failed hunk an error message repeats.
const (
	maxShownLines   = 20
	maxShownMatches = 10
)

// Error implements error.
func (e *HunkError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Update File %s: hunk %d (patch line %d): ", e.Path, e.Hunk, e.Line)
	what, verb := "the expected lines", "match"
	if e.Context {
		what, verb = "the @@ context line", "matches"
	}
	where := ""
	if e.Where != "" {
		where = " " + e.Where
	}
	switch {
	case errors.Is(e.Err, ErrAmbiguous):
		nums := make([]string, 0, maxShownMatches+1)
		for i, m := range e.Matches {
			if i == maxShownMatches {
				nums = append(nums, "...")
				break
			}
			nums = append(nums, strconv.Itoa(m))
		}
		fmt.Fprintf(&b, "%s %s %d places%s (file lines %s); add context lines or an @@ line to say which one:",
			what, verb, len(e.Matches), where, strings.Join(nums, ", "))
	default:
		fmt.Fprintf(&b, "could not find %s%s:", what, where)
	}
	shown := e.Lines
	if len(shown) > maxShownLines {
		shown = shown[:maxShownLines]
	}
	for _, l := range shown {
		b.WriteString("\n")
		b.WriteString(l)
	}
	if len(e.Lines) > len(shown) {
		fmt.Fprintf(&b, "\n... (%d more lines)", len(e.Lines)-len(shown))
	}
	return b.String()
}

// Unwrap returns ErrNoMatch or ErrAmbiguous.
func (e *HunkError) Unwrap() error { return e.Err }

func opName(k ChangeKind) string {
	switch k {
	case KindAdd:
		return "Add File"
	case KindDelete:
		return "Delete File"
	default:
		return "Update File"
	}
}
