package config

import (
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// tree is a decoded TOML document: map[string]any of tables, []any arrays
// and scalar leaves.
type tree = map[string]any

// joinKey renders a key path as a TOML dotted key, quoting parts that are
// not bare keys.
func joinKey(parts []string) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		if isBareKey(p) {
			out[i] = p
		} else {
			out[i] = strconv.Quote(p)
		}
	}
	return strings.Join(out, ".")
}

func isBareKey(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// leaf is one non-table value and its key path.
type leaf struct {
	key   []string
	value any
}

// leaves lists every non-table value of t in key order. Arrays are leaves.
func leaves(t tree) []leaf {
	var out []leaf
	var walk func(prefix []string, t tree)
	walk = func(prefix []string, t tree) {
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			key := append(append([]string(nil), prefix...), k)
			if sub, ok := t[k].(tree); ok {
				walk(key, sub)
				continue
			}
			out = append(out, leaf{key: key, value: t[k]})
		}
	}
	walk(nil, t)
	return out
}

// merge copies src's leaves into dst, tables merged key by key, and calls
// set for each leaf it writes.
func merge(dst, src tree, prefix []string, set func(key []string)) {
	for k, v := range src {
		key := append(append([]string(nil), prefix...), k)
		if sub, ok := v.(tree); ok {
			d, ok := dst[k].(tree)
			if !ok {
				d = tree{}
				dst[k] = d
			}
			merge(d, sub, key, set)
			continue
		}
		if d, ok := dst[k].([]any); ok && addsUp(key) {
			if add, ok := v.([]any); ok {
				dst[k] = append(clone(d).([]any), clone(add).([]any)...)
				set(key)
				continue
			}
		}
		dst[k] = clone(v)
		set(key)
	}
}

// addsUp says whether a higher layer's list adds to a lower one's rather
// than replacing it: the hook lists, so that a project's config (or an
// override) can add hooks but never drop the operator's.
func addsUp(key []string) bool {
	return len(key) == 2 && key[0] == "hooks" && (key[1] == "pre_tool" || key[1] == "post_tool")
}

func clone(v any) any {
	switch x := v.(type) {
	case tree:
		c := make(tree, len(x))
		for k, e := range x {
			c[k] = clone(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = clone(e)
		}
		return c
	}
	return v
}

// setPath builds the tree holding value at key.
func setPath(key []string, value any) tree {
	root := tree{}
	t := root
	for _, k := range key[:len(key)-1] {
		sub := tree{}
		t[k] = sub
		t = sub
	}
	t[key[len(key)-1]] = value
	return root
}

// lineIndex maps every key written in a TOML document (table headers, keys,
// keys inside inline tables) to the line it is on. The document must parse.
func lineIndex(data []byte) map[string]int {
	idx := map[string]int{}
	p := &unstable.Parser{}
	p.Reset(data)
	var prefix []string
	var keyval func(prefix []string, n *unstable.Node)
	keyval = func(prefix []string, n *unstable.Node) {
		key, line := keyOf(p, n.Key(), prefix)
		if _, seen := idx[joinKey(key)]; !seen {
			idx[joinKey(key)] = line
		}
		// Dotted keys create their intermediate tables here too.
		for i := len(prefix) + 1; i < len(key); i++ {
			if _, seen := idx[joinKey(key[:i])]; !seen {
				idx[joinKey(key[:i])] = line
			}
		}
		if v := n.Value(); v.Kind == unstable.InlineTable {
			it := v.Children()
			for it.Next() {
				keyval(key, it.Node())
			}
		}
	}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			var line int
			prefix, line = keyOf(p, e.Key(), nil)
			if _, seen := idx[joinKey(prefix)]; !seen {
				idx[joinKey(prefix)] = line
			}
		case unstable.KeyValue:
			keyval(prefix, e)
		}
	}
	return idx
}

func keyOf(p *unstable.Parser, it unstable.Iterator, prefix []string) ([]string, int) {
	key := append([]string(nil), prefix...)
	line := 0
	for it.Next() {
		n := it.Node()
		if line == 0 {
			line = p.Shape(n.Raw).Start.Line
		}
		key = append(key, string(n.Data))
	}
	return key, line
}
