package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tests against @modelcontextprotocol/server-filesystem from npm.

func TestFilesystemReadWriteUnderRoot(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("line one\nline two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := mustStart(t, map[string]ServerConfig{"fs": filesystemConfig(t, root)}, Options{})
	ctx := context.Background()
	args := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	t.Run("annotations drive approval", func(t *testing.T) {
		read, ok := m.Lookup("mcp__fs__read_text_file")
		if !ok || !read.ReadOnly {
			t.Fatalf("read_text_file = %+v, %v; want read-only", read, ok)
		}
		write, ok := m.Lookup("mcp__fs__write_file")
		if !ok || !write.Destructive || write.ReadOnly {
			t.Fatalf("write_file = %+v, %v; want destructive", write, ok)
		}
		if ask, _ := Requirement(ApprovalAuto, read); ask {
			t.Error("auto asks for read_text_file")
		}
		if ask, reason := Requirement(ApprovalAuto, write); !ask || !strings.Contains(reason, "destructiveHint") {
			t.Errorf("auto for write_file = %v, %q; want ask for destructiveHint", ask, reason)
		}
	})

	t.Run("read a file", func(t *testing.T) {
		res, err := m.Call(ctx, "fs", "read_text_file", args(map[string]string{"path": filepath.Join(root, "a.txt")}))
		if err != nil || res.IsError {
			t.Fatalf("read_text_file = %+v, %v", res, err)
		}
		if res.Text != "line one\nline two\n" {
			t.Errorf("read text = %q", res.Text)
		}
	})

	t.Run("write a file", func(t *testing.T) {
		p := filepath.Join(root, "new.txt")
		res, err := m.Call(ctx, "fs", "write_file", args(map[string]string{"path": p, "content": "written by docket"}))
		if err != nil || res.IsError {
			t.Fatalf("write_file = %+v, %v", res, err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != "written by docket" {
			t.Errorf("file on disk = %q, %v", got, err)
		}
	})

	t.Run("writing outside the root is refused by the server", func(t *testing.T) {
		p := filepath.Join(outside, "escape.txt")
		res, err := m.Call(ctx, "fs", "write_file", args(map[string]string{"path": p, "content": "nope"}))
		if err != nil {
			t.Fatalf("write_file outside = %v; want a tool error result", err)
		}
		if !res.IsError || !strings.Contains(strings.ToLower(res.Text), "access denied") {
			t.Errorf("write outside root = %+v; want IsError with access denied", res)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists after a refused write (stat: %v)", p, err)
		}
		if out, ok := ForModel(res, nil); ok || !strings.Contains(strings.ToLower(out), "access denied") {
			t.Errorf("ForModel = %q, %v", out, ok)
		}
	})
}
