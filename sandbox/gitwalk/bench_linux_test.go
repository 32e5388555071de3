package gitwalk

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkFindKeptPastTheBound is a session's walk per call when a root
// holds more than the walk's bound (a full /tmp) and, between two calls,
// a directory is made and removed there (what each call's stubs and every
// other process's temporary directories do). "fresh" walks every call;
// "kept" is the session's Cache, brought up to date from its events.
// Before issue 26's performance work the kept walk walked everything again
// after any removal, so "kept" cost what "fresh" does. "churn" is the
// making and removing alone, to subtract.
func BenchmarkFindKeptPastTheBound(b *testing.B) {
	ws := b.TempDir()
	for i := range MaxEntries / 2 {
		if err := os.MkdirAll(filepath.Join(ws, fmt.Sprint("d", i/100), fmt.Sprint(i)), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	roots := []string{ws}
	churn := func() {
		d := filepath.Join(ws, "d0", "tmp")
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.Remove(d); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("churn", func(b *testing.B) {
		for b.Loop() {
			churn()
		}
	})
	for _, tc := range []struct {
		name  string
		cache *Cache
	}{{"fresh", nil}, {"kept", &Cache{}}} {
		b.Run(tc.name, func(b *testing.B) {
			if tc.cache != nil {
				defer func() { _ = tc.cache.Close() }()
			}
			if set := Find(roots, ws, tc.cache); set.Complete {
				b.Fatal("the walk should be cut short: the tree is past the bound")
			}
			for b.Loop() {
				churn()
				if set := Find(roots, ws, tc.cache); set.Complete {
					b.Fatal("a walk of a tree past the bound reported complete")
				}
			}
			if tc.cache != nil {
				b.ReportMetric(float64(tc.cache.Walks()), "walks")
			}
		})
	}
}

// BenchmarkKeptWalkUpdateManyNewDirs is the call after a command made
// many directories in a root of a kept walk: the update that looks at
// them. "small" is 4,000 directories of a few entries, "large" 12 of
// 2,500 files each. Before the update had one budget, each new directory
// got a walk with a full budget and deadline of its own, so "large" read
// 30,000 entries; now one update reads at most MaxEntries in MaxTime.
func BenchmarkKeptWalkUpdateManyNewDirs(b *testing.B) {
	for _, tc := range []struct {
		name        string
		dirs, files int
	}{{"small", 4000, 1}, {"large", 12, 2500}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				ws := filepath.Join(b.TempDir(), "ws")
				if err := os.MkdirAll(ws, 0o755); err != nil {
					b.Fatal(err)
				}
				c := &Cache{}
				Find([]string{ws}, ws, c)
				for i := range tc.dirs {
					d := filepath.Join(ws, fmt.Sprint("d", i))
					if err := os.MkdirAll(filepath.Join(d, "a"), 0o755); err != nil {
						b.Fatal(err)
					}
					for j := range tc.files {
						if err := os.WriteFile(filepath.Join(d, fmt.Sprint("f", j)), nil, 0o644); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.StartTimer()
				Find([]string{ws}, ws, c)
				b.StopTimer()
				_ = c.Close()
				b.StartTimer()
			}
		})
	}
}
