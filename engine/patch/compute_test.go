package patch

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func mustParse(t testing.TB, text string) *Patch {
	t.Helper()
	p, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestComputeErrorsAreTyped(t *testing.T) {
	files := memFS{
		"/w/a.txt":     "a\nx\nb\nx\n",
		"/w/bin":       "a\x00",
		"/w/latin":     "caf\xe9\n",
		"/w/dir/f.txt": "f\n",
	}
	tests := []struct {
		name  string
		body  string
		cause error
		hunk  int // for *HunkError
		match []int
	}{
		{"update of a missing file", "*** Update File: nope\n@@\n-a", ErrMissing, 0, nil},
		{"delete of a missing file", "*** Delete File: nope", ErrMissing, 0, nil},
		{"add of an existing file", "*** Add File: a.txt\n+x", ErrExists, 0, nil},
		{"add over a directory", "*** Add File: dir\n+x", ErrExists, 0, nil},
		{"add under a file", "*** Add File: a.txt/b\n+x", ErrParentNotDir, 0, nil},
		{"update of a directory", "*** Update File: dir\n@@\n-a", ErrNotRegular, 0, nil},
		{"update of a binary file", "*** Update File: bin\n@@\n-a", ErrBinary, 0, nil},
		{"update of a non-UTF-8 file", "*** Update File: latin\n@@\n-a", ErrNotUTF8, 0, nil},
		{"move onto an existing file", "*** Update File: a.txt\n*** Move to: dir/f.txt\n@@\n-a\n+b", ErrExists, 0, nil},
		{"lines matching nowhere", "*** Update File: a.txt\n@@\n-zzz", ErrNoMatch, 1, nil},
		{"lines matching twice", "*** Update File: a.txt\n@@\n-x\n+y", ErrAmbiguous, 1, []int{2, 4}},
		{"second hunk matching twice after the first", "*** Update File: a.txt\n@@\n-a\n+A\n@@\n-x\n+y", ErrAmbiguous, 2, []int{2, 4}},
		{"context header matching nowhere", "*** Update File: a.txt\n@@ nothing\n-x", ErrNoMatch, 1, nil},
		{"add of a directory an earlier add creates", "*** Add File: new/x\n+x\n*** Add File: new\n+y", ErrExists, 0, nil},
		{"add under a file an earlier add creates", "*** Add File: f\n+x\n*** Add File: f/x\n+y", ErrParentNotDir, 0, nil},
		{"update after the same patch deleted it", "*** Delete File: a.txt\n*** Update File: a.txt\n@@\n-a", ErrMissing, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustParse(t, "*** Begin Patch\n"+tt.body+"\n*** End Patch")
			r, err := Compute(p, "/w", files)
			if r != nil || !errors.Is(err, tt.cause) {
				t.Fatalf("got %v, %v; want cause %v", r, err, tt.cause)
			}
			var he *HunkError
			if tt.hunk == 0 {
				var fe *FileError
				if !errors.As(err, &fe) {
					t.Fatalf("error %T, want *FileError", err)
				}
				return
			}
			if !errors.As(err, &he) {
				t.Fatalf("error %T, want *HunkError", err)
			}
			if he.Hunk != tt.hunk || !reflect.DeepEqual(he.Matches, tt.match) || he.Path != "a.txt" {
				t.Errorf("hunk %d matches %v path %q; want hunk %d matches %v", he.Hunk, he.Matches, he.Path, tt.hunk, tt.match)
			}
		})
	}
}

func TestAmbiguityRules(t *testing.T) {
	file := "func a() {\n\treturn nil\n}\n\nfunc b() {\n\treturn nil\n}\n"
	tests := []struct {
		name string
		body string
		want string // "" means an ambiguity error
	}{
		{"bare lines found twice", "@@\n-\treturn nil\n+\treturn err", ""},
		{"an @@ line disambiguates", "@@ func b() {\n-\treturn nil\n+\treturn err",
			"func a() {\n\treturn nil\n}\n\nfunc b() {\n\treturn err\n}\n"},
		{"the previous hunk disambiguates", "@@\n func a() {\n-\treturn nil\n+\treturn 1\n@@\n-\treturn nil\n+\treturn 2",
			"func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 2\n}\n"},
		{"both places after the previous hunk stay ambiguous", "@@\n func a() {\n@@\n-\treturn nil\n+\treturn err", ""},
		{"an exact match beats lenient ones", "@@\n-}\n+};\n \n func b() {",
			"func a() {\n\treturn nil\n};\n\nfunc b() {\n\treturn nil\n}\n"},
		{"end of file disambiguates", "@@\n-}\n+};\n*** End of File",
			"func a() {\n\treturn nil\n}\n\nfunc b() {\n\treturn nil\n};\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustParse(t, "*** Begin Patch\n*** Update File: f.go\n"+tt.body+"\n*** End Patch")
			r, err := Compute(p, "/w", memFS{"/w/f.go": file})
			if tt.want == "" {
				if !errors.Is(err, ErrAmbiguous) {
					t.Fatalf("got %v, want ErrAmbiguous", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(r.Changes[0].New); got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestComputeResultCarriesPathsAndContents(t *testing.T) {
	p := mustParse(t, "*** Begin Patch\n*** Update File: a.txt\n*** Move to: sub/b.txt\n@@\n-a\n+A\n*** Delete File: /other/c.txt\n*** End Patch")
	r, err := Compute(p, "/w/", memFS{"/w/a.txt": "a\n", "/other/c.txt": "c\n"})
	if err != nil {
		t.Fatal(err)
	}
	want := []FileChange{
		{Kind: KindUpdate, Path: "/w/a.txt", MovePath: "/w/sub/b.txt", Display: "a.txt", DisplayMove: "sub/b.txt", Old: []byte("a\n"), New: []byte("A\n"), Perm: 0o640},
		{Kind: KindDelete, Path: "/other/c.txt", Display: "/other/c.txt", Old: []byte("c\n"), Perm: 0o640},
	}
	if r.Workdir != "/w" || !reflect.DeepEqual(r.Changes, want) {
		t.Errorf("got %+v\nwant %+v", r, want)
	}
}

func TestComputeRejectsRelativeWorkdirAndEmptyPatch(t *testing.T) {
	p := mustParse(t, "*** Begin Patch\n*** Delete File: a\n*** End Patch")
	if _, err := Compute(p, "rel", memFS{}); err == nil || !strings.Contains(err.Error(), "not an absolute path") {
		t.Errorf("relative workdir: %v", err)
	}
	if _, err := Compute(&Patch{}, "/w", memFS{}); err == nil {
		t.Error("empty patch computed")
	}
}

func TestSeekPasses(t *testing.T) {
	lines := []string{"  foo  ", "bar\t", "\u201cq\u201d \u2014 x", "dup", "dup"}
	m := newMatcher(lines)
	tests := []struct {
		name  string
		pat   []string
		start int
		eof   bool
		want  []int
	}{
		{"exact", []string{"bar\t"}, 0, false, []int{1}},
		{"trailing whitespace", []string{"  foo", "bar"}, 0, false, []int{0}},
		{"trimmed", []string{"foo"}, 0, false, []int{0}},
		{"punctuation folded", []string{`"q" - x`}, 0, false, []int{2}},
		{"all matches of the first successful pass", []string{"dup"}, 0, false, []int{3, 4}},
		{"start bounds the search", []string{"dup"}, 4, false, []int{4}},
		{"eof tries only the end", []string{"dup"}, 0, true, []int{4}},
		{"longer than the file", make([]string, 6), 0, false, nil},
		{"empty pattern matches at start", nil, 2, false, []int{2}},
		{"start past the end", []string{"dup"}, 5, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := m.seek(tt.pat, tt.start, tt.eof); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUpdateKeepsPermissionsAndSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.sh")
	if err := os.WriteFile(target, []byte("echo a\n"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.sh", filepath.Join(dir, "link.sh")); err != nil {
		t.Fatal(err)
	}
	sum, err := parseComputeApply("*** Begin Patch\n*** Update File: link.sh\n@@\n-echo a\n+echo b\n*** End Patch", dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.String() != "Success. Updated the following files:\nM link.sh\n" {
		t.Errorf("summary %q", sum)
	}
	fi, err := os.Lstat(filepath.Join(dir, "link.sh"))
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link.sh is no longer a symlink: %v %v", fi, err)
	}
	data, _ := os.ReadFile(target)
	st, _ := os.Stat(target)
	if string(data) != "echo b\n" || st.Mode().Perm() != 0o750 {
		t.Errorf("target %q mode %v, want %q 0750", data, st.Mode().Perm(), "echo b\n")
	}
}
