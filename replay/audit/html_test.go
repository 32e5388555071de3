package audit

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/docket-engine/docket/states"
)

// pageCall is what the HTML page shows for one call's diagram.
type pageCall struct {
	id          string
	highlighted []string // data-edge of edges with class hl
	visited     []string // data-state of states with class visited
	final       []string
	edges       int
	timeline    int
}

// parsePage reads the page as XML, which it must be, and collects each
// call's diagram and timeline, and every element name used.
func parsePage(t *testing.T, page []byte) ([]pageCall, map[string]bool) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(page))
	dec.Strict = true
	elems := map[string]bool{}
	var calls []pageCall
	var cur *pageCall
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("page is not well-formed: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		elems[se.Name.Local] = true
		attr := map[string]string{}
		for _, a := range se.Attr {
			attr[a.Name.Local] = a.Value
			if a.Name.Local == "src" || a.Name.Local == "href" {
				t.Errorf("<%s %s=%q>: the page must not load anything", se.Name.Local, a.Name.Local, a.Value)
			}
		}
		classes := strings.Fields(attr["class"])
		switch {
		case se.Name.Local == "section" && slices.Contains(classes, "call"):
			calls = append(calls, pageCall{id: attr["data-call"]})
			cur = &calls[len(calls)-1]
		case cur == nil:
		case se.Name.Local == "li" && attr["data-seq"] != "":
			cur.timeline++
		case slices.Contains(classes, "edge"):
			cur.edges++
			if slices.Contains(classes, "hl") {
				cur.highlighted = append(cur.highlighted, attr["data-edge"])
			}
		case slices.Contains(classes, "state"):
			if slices.Contains(classes, "visited") {
				cur.visited = append(cur.visited, attr["data-state"])
			}
			if slices.Contains(classes, "final") {
				cur.final = append(cur.final, attr["data-state"])
			}
		}
	}
	return calls, elems
}

func TestHTMLPageHighlightsThePathEachCallTook(t *testing.T) {
	path := mixedSession(t)
	r, err := Build(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	calls, elems := parsePage(t, page.Bytes())
	for _, banned := range []string{"script", "link", "img", "iframe"} {
		if elems[banned] {
			t.Errorf("page has a <%s> element: it must be self-contained", banned)
		}
	}
	if !elems["style"] || !elems["svg"] {
		t.Errorf("page lacks inline style or svg: %v", elems)
	}
	if len(calls) != len(r.Calls) {
		t.Fatalf("page shows %d calls, report has %d", len(calls), len(r.Calls))
	}
	edges := 0
	for _, e := range states.Table() {
		edges += len(e.From)
	}
	for i, c := range r.Calls {
		pc := calls[i]
		t.Run(c.CallID, func(t *testing.T) {
			if pc.id != c.CallID {
				t.Fatalf("section %d is %s", i, pc.id)
			}
			if pc.edges != edges {
				t.Errorf("diagram has %d edges, the table %d", pc.edges, edges)
			}
			var want []string
			visited := []string{string(states.WantsApproval)}
			for _, tr := range c.Transitions {
				want = append(want, tr.From+"|"+tr.Event)
				visited = append(visited, tr.From, tr.To)
			}
			sort.Strings(want)
			want = slices.Compact(want)
			got := slices.Clone(pc.highlighted)
			sort.Strings(got)
			if !slices.Equal(got, want) {
				t.Errorf("highlighted edges %v, want %v", got, want)
			}
			sort.Strings(visited)
			visited = slices.Compact(visited)
			gotV := slices.Clone(pc.visited)
			sort.Strings(gotV)
			if !slices.Equal(gotV, visited) {
				t.Errorf("visited states %v, want %v", gotV, visited)
			}
			if len(pc.final) != 1 || pc.final[0] != c.FinalState {
				t.Errorf("final state marked %v, want %s", pc.final, c.FinalState)
			}
			n := len(c.Transitions) + len(c.Decisions) + len(c.Requests)
			for _, a := range c.Attempts {
				if a.Seq > 0 {
					n++
				}
				if a.OutcomeSeq > 0 {
					n++
				}
			}
			if pc.timeline != n {
				t.Errorf("timeline has %d entries, want %d", pc.timeline, n)
			}
		})
	}
	// The sandbox-denial retry, spelled out: the path the audit exists for.
	c3 := calls[2]
	want := []string{"awaitingDecision|run_unsandboxed", "retryPrompt|ask", "sandboxed|sandbox_denied", "unsandboxed|finish", "wantsApproval|run_sandboxed"}
	got := slices.Clone(c3.highlighted)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("c3 path %v, want %v", got, want)
	}
}

func TestHTMLEscapesHostileText(t *testing.T) {
	r := &Report{SessionID: `<script>alert(1)</script>`, Journal: "a&b", Calls: []Call{{
		CallID: `c"1`, Tool: "shell", Command: []string{"echo", "</section><b>\x00\x1b"}, FinalState: "done", Outcome: "completed",
		Transitions: []Transition{{Seq: 1, From: "wantsApproval", Event: "run_sandboxed", To: "sandboxed", Cause: "x", Reason: "<i>&amp;"}},
		Decisions:   []Decision{},
	}}}
	var page bytes.Buffer
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	calls, elems := parsePage(t, page.Bytes())
	if elems["script"] || elems["i"] || len(calls) != 1 || calls[0].id != `c"1` {
		t.Fatalf("hostile text became markup: elems %v calls %+v", elems, calls)
	}
}
