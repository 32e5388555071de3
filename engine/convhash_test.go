package engine

import (
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"

	"github.com/docket-engine/docket/events"
)

// One itemHasher, used for a chain of items in turn, gives the digests the
// chain's definition gives (sha256 of the previous digest and the item's
// json.Marshal bytes): reuse carries nothing from one item into the next,
// and HTML-escaping and the encoder's newline come out as Marshal's.
func TestItemHasherMatchesMarshalChain(t *testing.T) {
	items := []events.Item{
		{Type: "message", Role: "user", Text: "go"},
		{Type: "function_call", CallID: "c1", Name: "shell", Arguments: `{"command":["bash","-lc","echo 1 > f1 && cat <a.txt"]}`},
		{Type: "function_call_output", CallID: "c1", Output: "ok\n<&>\u2028"},
		{Type: "message", Role: "user", Images: []string{"data:image/png;base64,AAAA"}},
		{Type: "message"},
	}
	var x itemHasher
	checkChain(t, &x, items, nil)
}

// checkChain hashes items with x and fails at the first digest that is not
// the Marshal chain's; after, when set, runs after each item.
func checkChain(t *testing.T, x *itemHasher, items []events.Item, after func(i int)) {
	t.Helper()
	var got, want [32]byte
	for i, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		want = sha256.Sum256(append(want[:], b...))
		if got = x.next(got, &it); got != want {
			t.Fatalf("item %d: reused hasher %x, Marshal chain %x", i, got, want)
		}
		if after != nil {
			after(i)
		}
	}
}

// TestItemHasherLetsALargeBufferGo: after a large item the hasher keeps no
// buffer past maxKeptHashBuf, and the chain goes on as Marshal's.
func TestItemHasherLetsALargeBufferGo(t *testing.T) {
	items := []events.Item{
		{Type: "function_call_output", CallID: "c1", Output: strings.Repeat("x", 4<<20)},
		{Type: "message", Role: "user", Text: "after"},
	}
	var x itemHasher
	checkChain(t, &x, items, func(i int) {
		if c := x.buf.Cap(); c > maxKeptHashBuf {
			t.Fatalf("after item %d the hasher keeps a %d-byte buffer (bound %d)", i, c, maxKeptHashBuf)
		}
	})
}
