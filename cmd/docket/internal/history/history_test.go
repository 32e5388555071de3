package history

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestAddPersistsSafely(t *testing.T) {
	home := t.TempDir()
	h, err := Open(home, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"first", "two\nlines", "first", "first", "   ", "ctl \x1b[31m \"quoted\""} {
		if err := h.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"first", "two\nlines", "first", "ctl \x1b[31m \"quoted\""}
	if got := h.Entries(); !reflect.DeepEqual(got, want) {
		t.Fatalf("entries %q, want %q (blank and repeated prompts skipped)", got, want)
	}
	info, err := os.Stat(h.Path())
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("history file mode %v, %v; want 0600", info.Mode(), err)
	}
	b, _ := os.ReadFile(h.Path())
	if n := strings.Count(string(b), "\n"); n != len(want) {
		t.Fatalf("%d lines for %d entries: a prompt's newline broke the file\n%s", n, len(want), b)
	}
	again, err := Open(home, DefaultLimits())
	if err != nil || !reflect.DeepEqual(again.Entries(), want) {
		t.Fatalf("reopened: %q, %v", again.Entries(), err)
	}
}

func TestOpenSkipsDamagedLines(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, FileName), []byte("\"ok\"\n{not json\n\"torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := Open(home, DefaultLimits())
	if err != nil || !reflect.DeepEqual(h.Entries(), []string{"ok"}) {
		t.Fatalf("entries %q, %v", h.Entries(), err)
	}
}

func TestHistoryIsBounded(t *testing.T) {
	home := t.TempDir()
	lim := Limits{MaxBytes: 1000, MaxEntryBytes: 50}
	h, err := Open(home, lim)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Add(strings.Repeat("x", 51)); err != nil || len(h.Entries()) != 0 {
		t.Fatalf("an over-long prompt was kept: %d entries, %v", len(h.Entries()), err)
	}
	for i := range 200 {
		if err := h.Add(strings.Repeat("p", 10) + string(rune('a'+i%26)) + strings.Repeat("q", i%7)); err != nil {
			t.Fatal(err)
		}
	}
	info, err := os.Stat(h.Path())
	if err != nil || info.Size() > lim.MaxBytes {
		t.Fatalf("history is %d bytes, over %d", info.Size(), lim.MaxBytes)
	}
	again, _ := Open(home, lim)
	if got, mem := again.Entries(), h.Entries(); !reflect.DeepEqual(got, mem) || len(got) == 0 {
		t.Fatalf("file holds %d entries, memory %d", len(got), len(mem))
	}
	if last := h.Entries()[len(h.Entries())-1]; !strings.HasPrefix(last, "pppppppppp") || last[10] != byte('a'+199%26) {
		t.Fatalf("the newest entry was dropped: %q", last)
	}
}

func TestAddRefusesASymlinkedFile(t *testing.T) {
	home, other := t.TempDir(), t.TempDir()
	target := filepath.Join(other, "elsewhere")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(home, FileName)); err != nil {
		t.Fatal(err)
	}
	h, err := Open(home, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Add("secret prompt"); err == nil {
		t.Fatal("Add wrote through a symlink")
	}
	if b, _ := os.ReadFile(target); len(b) != 0 {
		t.Fatalf("the symlink's target got %q", b)
	}
}

func TestCursor(t *testing.T) {
	home := t.TempDir()
	h, _ := Open(home, DefaultLimits())
	for _, p := range []string{"a", "b", "c"} {
		if err := h.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	c := h.Cursor()
	steps := []struct {
		up   bool
		want string
		ok   bool
	}{
		{true, "c", true}, {true, "b", true}, {true, "a", true}, {true, "draft", false},
		{false, "b", true}, {false, "c", true}, {false, "draft", true}, {false, "", false},
	}
	for i, s := range steps {
		var got string
		var ok bool
		if s.up {
			got, ok = c.Up("draft")
		} else {
			got, ok = c.Down()
		}
		if ok != s.ok || (ok && got != s.want) {
			t.Fatalf("step %d: %q, %v; want %q, %v", i, got, ok, s.want, s.ok)
		}
	}
	c.Reset("d")
	if got, _ := c.Up(""); got != "d" {
		t.Fatalf("after Reset the newest entry is %q, want d", got)
	}
}
