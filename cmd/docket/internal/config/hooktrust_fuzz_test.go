package config

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzDecodeHookTrust feeds the trust file's decoder any bytes (the file
// is under the user's home, but a disk, an editor or another tool can
// damage it): it must not panic, and what it accepts is complete and
// reads back the same once written again.
func FuzzDecodeHookTrust(f *testing.F) {
	good := `{"version":1,"hooks":[{"file":"/p/.docket/config.toml","stage":"pre_tool","name":"gate","hash":"sha256:` + strings.Repeat("a", 64) + `"}]}`
	for _, s := range []string{good, `{"version":1,"hooks":[]}`, `{"version":1,"hooks":null}`, `{}`, `[]`, `null`, "", "\xff",
		`{"version":1,"hooks":[{}]}`, good + good, strings.Replace(good, "pre_tool", "mid_tool", 1)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		list, err := decodeHookTrust(data)
		if err != nil {
			return
		}
		for _, h := range list {
			if !filepath.IsAbs(h.File) || (h.Stage != "pre_tool" && h.Stage != "post_tool") || h.Name == "" || !validHookHash(h.Hash) {
				t.Fatalf("accepted an incomplete record %+v from %q", h, data)
			}
		}
		b, err := json.Marshal(hookTrustDoc{Version: hookTrustVersion, Hooks: list})
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeHookTrust(b)
		if err != nil || !slices.Equal(again, list) {
			t.Fatalf("written again it reads %+v (%v), want %+v", again, err, list)
		}
	})
}
