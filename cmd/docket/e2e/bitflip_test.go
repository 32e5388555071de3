package e2e

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One flipped bit in the element count of a journal's last records leaf
// (page 7 of testdata/journals/crash-resume.docket, a session the binary
// wrote) sent bbolt reading outside the page, and audit showed the
// recovered panic ("runtime error: slice bounds out of range"). audit,
// replay and resume must name the file and the damaged page instead.
func TestABitFlipInAJournalSaysWhatIsDamaged(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "journals", "crash-resume.docket"))
	if err != nil {
		t.Fatal(err)
	}
	const page, pageSize = 7, 4096
	if flags := binary.LittleEndian.Uint16(src[page*pageSize+8:]); flags != 0x02 {
		t.Fatalf("page %d of the fixture has flags %#x, not a leaf's: the fixture changed", page, flags)
	}
	for _, bit := range []uint{0, 4, 8} {
		home := t.TempDir()
		path := filepath.Join(t.TempDir(), "flipped.docket")
		b := append([]byte(nil), src...)
		b[page*pageSize+10+bit/8] ^= 1 << (bit % 8)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"audit", "--home", home, path},
			{"replay", "--home", home, path},
			{"resume", "--home", home, "--model-script", replies(t, "x"), path, "more"},
		} {
			r := docket(t, nil, args...)
			out := r.stdout + r.stderr
			if strings.Contains(out, "runtime error") || strings.Contains(out, "panic") {
				t.Errorf("bit %d, %s: a runtime error instead of what is damaged:\n%s", bit, args[0], out)
			}
			if !strings.Contains(out, path) || !strings.Contains(out, "damaged") {
				t.Errorf("bit %d, %s: exit %d, the output does not name the damaged file:\n%s", bit, args[0], r.code, out)
			}
		}
	}
}
