package render

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite jsonlschema/schema.json from the renderer's types")

// TestSchemaFileIsGenerated checks that the schema every stream test
// validates against is what SchemaJSON generates from the renderer's
// types: a field added to an event without the schema following fails.
func TestSchemaFileIsGenerated(t *testing.T) {
	want, err := SchemaJSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("jsonlschema", "schema.json")
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what SchemaJSON generates: go test ./cmd/docket/internal/render -run TestSchemaFileIsGenerated -update", path)
	}
}
