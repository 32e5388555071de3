package events_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/docket-engine/docket/events"
	"github.com/docket-engine/docket/journal"
)

// One BodyEncoder, used for every record of every committed journal in
// turn, gives the bytes EncodeBody gives and the journal holds: reuse
// carries nothing from one body into the next.
func TestBodyEncoderMatchesEncodeBody(t *testing.T) {
	files, _ := filepath.Glob("../testdata/journals/*.docket")
	more, _ := filepath.Glob("../testdata/journals/causes/*.docket")
	files = append(files, more...)
	if len(files) < 10 {
		t.Fatalf("found %d journals under ../testdata/journals", len(files))
	}
	var enc events.BodyEncoder
	n := 0
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Fatal(err)
		}
		err := journal.Scan(f, 1, func(r events.Record) error {
			body, err := r.Decode()
			if err != nil {
				return err
			}
			want, err := events.EncodeBody(body)
			if err != nil {
				return err
			}
			got, err := enc.Encode(body)
			if err != nil {
				return err
			}
			if !bytes.Equal(got, want) || !bytes.Equal(got, r.Body) {
				t.Fatalf("%s seq %d (%s): the reused encoder wrote %x, EncodeBody %x, the journal %x", f, r.Seq, r.Kind, got, want, r.Body)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	t.Logf("%d records from %d journals", n, len(files))
}
