package engine

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/docket-engine/docket/engine/model"
)

// FuzzWriteStdinArguments: whatever the model sends, Prepare answers
// with an error or a write whose characters are valid text without NUL,
// within the bounds.
func FuzzWriteStdinArguments(f *testing.F) {
	f.Add(`{"session_id":1000,"chars":"hi\n"}`)
	f.Add(`{"session_id":1000,"yield_time_ms":1e308,"max_output_tokens":-0}`)
	f.Add(`{"session_id":1001,"chars":"\ud800"}`)
	env := procEnv()
	f.Fuzz(func(t *testing.T, payload string) {
		p, err := WriteStdinTool{}.Prepare(Call{ID: "w", Name: WriteStdinName, Kind: model.ToolFunction, Payload: payload}, env)
		if err != nil {
			return
		}
		pc := p.Start.Process
		if strings.IndexByte(pc.Chars, 0) >= 0 || !utf8.ValidString(pc.Chars) {
			t.Fatalf("chars %q accepted", pc.Chars)
		}
		if pc.YieldMs < yieldMinMs || pc.YieldMs > pollYieldMaxMs || pc.MaxOutputTokens < 0 || pc.MaxOutputTokens > MaxOutputTokensCap {
			t.Fatalf("out of bounds: %+v", pc)
		}
		if pc.Chars != "" && !pc.Tty {
			t.Fatal("a write to a process without a tty was accepted")
		}
	})
}

// FuzzApplyPatchOperation: an operation becomes a patch or an error,
// never a patch that writes a path other than the one it names.
func FuzzApplyPatchOperation(f *testing.F) {
	f.Add(`{"type":"create_file","path":"a.txt","diff":"+hi\n"}`)
	f.Add(`{"type":"update_file","path":"a.txt","diff":"@@\n-a\n+b\n*** Delete File: b.txt"}`)
	f.Add(`{"type":"delete_file","path":"x"}`)
	f.Fuzz(func(t *testing.T, payload string) {
		paths := NativeApplyPatchTool{}.WritePaths(Call{Kind: model.ToolApplyPatch, Payload: payload}, "/w")
		if len(paths) > 1 {
			t.Fatalf("one operation writes %v", paths)
		}
	})
}
