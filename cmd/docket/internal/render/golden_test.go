package render

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// golden compares got with testdata/name; DOCKET_UPDATE_GOLDEN=1 rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("DOCKET_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (DOCKET_UPDATE_GOLDEN=1 creates it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestJSONLGolden renders every scenario as Codex's stream (NAME.jsonl)
// and with Docket's extensions (NAME.ext.jsonl).
func TestJSONLGolden(t *testing.T) {
	for name, seq := range scenarios() {
		for _, ext := range []bool{false, true} {
			file := name + ".jsonl"
			if ext {
				file = name + ".ext.jsonl"
			}
			t.Run(file, func(t *testing.T) {
				var out bytes.Buffer
				j := NewJSONLWith(&out, JSONLOptions{Extensions: ext})
				for _, n := range seq {
					j.Notify(n)
				}
				if err := j.Err(); err != nil {
					t.Fatal(err)
				}
				golden(t, file, out.Bytes())
			})
		}
	}
}

func TestHumanGolden(t *testing.T) {
	for name, seq := range scenarios() {
		for _, mode := range []struct {
			suffix string
			opts   HumanOptions
		}{
			{"plain", HumanOptions{}},
			{"color", HumanOptions{Color: true}},
			{"verbose", HumanOptions{Verbose: true}},
		} {
			t.Run(name+"/"+mode.suffix, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				h := NewHuman(&stdout, &stderr, mode.opts)
				for _, n := range seq {
					h.Notify(n)
				}
				// stdout is the final message alone, whatever the mode.
				golden(t, name+".stdout", stdout.Bytes())
				golden(t, name+"."+mode.suffix+".stderr", stderr.Bytes())
				if !mode.opts.Color && bytes.ContainsRune(stderr.Bytes(), 0x1b) {
					t.Error("ANSI escape in output without colour")
				}
			})
		}
	}
}
