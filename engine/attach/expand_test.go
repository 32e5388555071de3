package attach

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// png1x1 is a one-pixel PNG.
func png1x1(t *testing.T) []byte {
	b, err := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tree writes files under a new directory and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestExpand(t *testing.T) {
	outside := tree(t, map[string]string{"secret.txt": "secret\n"})
	root := tree(t, map[string]string{
		"main.go":        "package main\n",
		"docs/my notes":  "notes\n",
		"big.txt":        strings.Repeat("x", 100),
		"utf8.txt":       strings.Repeat("é", 10), // 20 bytes, 2 a rune
		"bin.dat":        "ab\x00cd",
		"latin1.txt":     "caf\xe9\n",
		"shot.png":       string(png1x1(t)),
		"sub/inner.txt":  "inner\n",
		"other/file.txt": "other\n",
	})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "out-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub/inner.txt", filepath.Join(root, "in-link")); err != nil {
		t.Fatal(err)
	}
	// Without the check, the link would hand over the outside file.
	if b, err := os.ReadFile(filepath.Join(root, "out-link")); err != nil || string(b) != "secret\n" {
		t.Fatalf("the escaping link does not lead out: %q, %v", b, err)
	}
	lim := Limits{MaxFileBytes: 64, MaxTotalBytes: 80, MaxRefs: 4}
	type att struct {
		path, content string
		truncated     bool
	}
	for _, tc := range []struct {
		name, prompt string
		want         []att
		images       int
		unresolved   []string
		err          error  // errors.Is target
		errRef       string // the reference the error names
	}{
		{name: "a text file", prompt: "explain @main.go", want: []att{{"main.go", "package main\n", false}}},
		{name: "quoted path", prompt: `read @"docs/my notes"`, want: []att{{"docs/my notes", "notes\n", false}}},
		{name: "the same file twice attaches once", prompt: "@main.go and @./main.go", want: []att{{"main.go", "package main\n", false}}},
		{name: "cut at the per-file cap", prompt: "@big.txt", want: []att{{"big.txt", strings.Repeat("x", 64), true}}},
		{name: "a symlink inside the workspace", prompt: "@in-link", want: []att{{"in-link", "inner\n", false}}},
		{name: "an image becomes an input image", prompt: "what is @shot.png", images: 1},
		{name: "an absolute path inside", prompt: "@" + filepath.Join(root, "main.go"), want: []att{{"main.go", "package main\n", false}}},
		{name: "escaped @@ attaches nothing", prompt: "@@main.go"},
		{name: "a missing file stays text", prompt: "install @types/node and @nope.go", unresolved: []string{"@types/node", "@nope.go"}},
		{name: "directory", prompt: "@sub", err: ErrDirectory, errRef: "@sub"},
		{name: "binary", prompt: "@bin.dat", err: ErrBinary, errRef: "@bin.dat"},
		{name: "not UTF-8", prompt: "@latin1.txt", err: ErrBinary, errRef: "@latin1.txt"},
		{name: "dot-dot outside", prompt: "@../x", err: ErrOutside, errRef: "@../x"},
		{name: "absolute outside", prompt: "@" + filepath.Join(outside, "secret.txt"), err: ErrOutside},
		{name: "symlink leading outside", prompt: "@out-link", err: ErrOutside, errRef: "@out-link"},
		{name: "total cap", prompt: "@big.txt @main.go @sub/inner.txt", err: ErrTotal, errRef: "@sub/inner.txt"},
		{name: "too many references", prompt: "@a @b @c @d @e", err: ErrTooManyRefs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Expand(root, tc.prompt, lim)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Expand(%q) err = %v, want %v", tc.prompt, err, tc.err)
				}
				var re *RefError
				if tc.errRef != "" && (!errors.As(err, &re) || re.Ref != tc.errRef || !strings.Contains(err.Error(), tc.errRef)) {
					t.Fatalf("error %v does not name %s", err, tc.errRef)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []att
			for _, a := range res.Attachments {
				got = append(got, att{a.Path, a.Content, a.Truncated})
			}
			if len(got) != len(tc.want) {
				t.Fatalf("attachments %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("attachment %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
			if strings.Join(res.Unresolved, ",") != strings.Join(tc.unresolved, ",") {
				t.Fatalf("unresolved %q, want %q", res.Unresolved, tc.unresolved)
			}
			if len(res.Images) != tc.images {
				t.Fatalf("%d images, want %d", len(res.Images), tc.images)
			}
			for _, u := range res.Images {
				if !strings.HasPrefix(u, "data:image/png;base64,") {
					t.Fatalf("image %q is not a png data URL", u[:min(len(u), 40)])
				}
			}
		})
	}
}

// TestTruncationKeepsRunesWhole: a cut inside a multi-byte character drops
// the partial character rather than sending invalid UTF-8.
func TestTruncationKeepsRunesWhole(t *testing.T) {
	root := tree(t, map[string]string{"utf8.txt": strings.Repeat("é", 10)})
	res, err := Expand(root, "@utf8.txt", Limits{MaxFileBytes: 5})
	if err != nil {
		t.Fatal(err)
	}
	a := res.Attachments[0]
	if a.Content != "éé" || !a.Truncated || a.Size != 20 {
		t.Fatalf("attachment %+v, want two whole runes of 20 bytes, truncated", a)
	}
}

func TestPastedImage(t *testing.T) {
	root := tree(t, map[string]string{"shot one.png": string(png1x1(t)), "notes.txt": "not an image"})
	abs := filepath.Join(root, "shot one.png")
	for _, tc := range []struct {
		name, text string
		ok         bool
	}{
		{"absolute, quoted", "'" + abs + "'", true},
		{"backslash-escaped space", strings.ReplaceAll(abs, " ", `\ `), true},
		{"file URL", "file://" + strings.ReplaceAll(abs, " ", "%20"), true},
		{"relative to the workspace", `"shot one.png"`, true},
		{"trailing newline of a paste", abs + "\n", true},
		{"a text file", filepath.Join(root, "notes.txt"), false},
		{"prose", "please fix the bug", false},
		{"two lines", abs + "\n" + abs, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := PastedImage(tc.text, root)
			if ok != tc.ok || (ok && p != abs) {
				t.Fatalf("PastedImage(%q) = %q, %v; want %v", tc.text, p, ok, tc.ok)
			}
			if ok {
				if _, err := ImageDataURL(p); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func TestImageDataURLRefusesNonImages(t *testing.T) {
	root := tree(t, map[string]string{"fake.png": "just text"})
	if _, err := ImageDataURL(filepath.Join(root, "fake.png")); !errors.Is(err, ErrNotImage) {
		t.Fatalf("err = %v, want ErrNotImage", err)
	}
}
