package audit

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/docket-engine/docket/states"
)

// Diagram geometry: state boxes and the canvas.
const (
	boxW, boxH   = 144.0, 36.0
	canvasWidth  = 790
	canvasHeight = 420
)

// statePos places each state's box centre. done is a wide box along the
// bottom, so every edge into it can come straight down.
func statePos(s states.State) (x, y float64) {
	switch s {
	case states.WantsApproval:
		return 100, 80
	case states.AwaitingDecision:
		return 390, 80
	case states.Denied:
		return 680, 80
	case states.Sandboxed:
		return 100, 240
	case states.RetryPrompt:
		return 390, 240
	case states.Unsandboxed:
		return 680, 240
	case states.Done:
		return 390, 388
	}
	return 20, 20
}

// boxWidth is a state box's width.
func boxWidth(s states.State) float64 {
	if s == states.Done {
		return 724
	}
	return boxW
}

// geom is how one edge is drawn: a quadratic curve from s through control
// point c to e, and where its label sits.
type geom struct {
	sx, sy, cx, cy, ex, ey float64
	lx, ly                 float64
	anchor                 string
}

func straight(sx, sy, ex, ey, lx, ly float64, anchor string) geom {
	return geom{sx, sy, (sx + ex) / 2, (sy + ey) / 2, ex, ey, lx, ly, anchor}
}

// edgeGeom lays out the edges of the design's table by hand so that no
// edge crosses a box and labels stay apart; an edge the table gains later
// is drawn by autoGeom until it gets a place here.
func edgeGeom(from states.State, ev states.Event) (geom, bool) {
	switch string(from) + "|" + string(ev) {
	case "wantsApproval|ask":
		return straight(172, 80, 318, 80, 245, 74, "middle"), true
	case "retryPrompt|ask":
		return straight(370, 222, 370, 98, 364, 165, "end"), true
	case "wantsApproval|run_sandboxed":
		return straight(100, 98, 100, 222, 106, 165, "start"), true
	case "awaitingDecision|run_sandboxed":
		return straight(340, 98, 172, 226, 282, 142, "end"), true
	case "wantsApproval|run_unsandboxed":
		return straight(172, 94, 608, 228, 300, 126, "middle"), true
	case "awaitingDecision|run_unsandboxed":
		return straight(440, 98, 608, 226, 530, 156, "start"), true
	case "retryPrompt|run_unsandboxed":
		return straight(462, 240, 608, 240, 535, 254, "middle"), true
	case "wantsApproval|deny":
		return geom{100, 62, 390, -10, 680, 62, 390, 22, "middle"}, true
	case "awaitingDecision|deny":
		return straight(462, 80, 608, 80, 535, 74, "middle"), true
	case "sandboxed|sandbox_denied":
		return straight(172, 240, 318, 240, 236, 234, "middle"), true
	case "sandboxed|finish":
		return straight(80, 258, 80, 370, 74, 320, "end"), true
	case "sandboxed|interrupt":
		return straight(120, 258, 120, 370, 126, 320, "start"), true
	case "retryPrompt|finish":
		return straight(375, 258, 375, 370, 369, 320, "end"), true
	case "retryPrompt|interrupt":
		return straight(415, 258, 415, 370, 421, 320, "start"), true
	case "unsandboxed|finish":
		return straight(660, 258, 660, 370, 654, 320, "end"), true
	case "unsandboxed|interrupt":
		return straight(700, 258, 700, 370, 706, 320, "start"), true
	case "denied|finish":
		return geom{752, 86, 805, 240, 745, 370, 770, 160, "end"}, true
	case "wantsApproval|fail":
		return geom{40, 98, -25, 240, 40, 370, 10, 320, "start"}, true
	case "awaitingDecision|interrupt":
		return geom{450, 98, 560, 240, 520, 370, 536, 300, "start"}, true
	}
	return geom{}, false
}

// autoGeom draws an edge centre to centre, clipped to the boxes.
func autoGeom(from, to states.State) geom {
	x0, y0 := statePos(from)
	x1, y1 := statePos(to)
	sx, sy := clip(x0, y0, boxWidth(from), x1-x0, y1-y0)
	ex, ey := clip(x1, y1, boxWidth(to), x0-x1, y0-y1)
	return straight(sx, sy, ex, ey, (sx+ex)/2, (sy+ey)/2-4, "middle")
}

// diagram is the state graph with one call's path on it.
type diagram struct {
	id      string                // unique within the page, for marker ids
	steps   map[string][]int      // "from|event" -> the call's step numbers
	visited map[states.State]bool // states the call was in
	final   states.State
}

func newDiagram(id string, c *Call) *diagram {
	d := &diagram{id: id, steps: map[string][]int{}, visited: map[states.State]bool{states.WantsApproval: true}, final: states.State(c.FinalState)}
	for i, t := range c.Transitions {
		k := t.From + "|" + t.Event
		d.steps[k] = append(d.steps[k], i+1)
		d.visited[states.State(t.From)] = true
		d.visited[states.State(t.To)] = true
	}
	return d
}

type edge struct {
	from, to states.State
	event    states.Event
}

// write renders the diagram as inline SVG: every edge of states.Table(),
// the call's edges (class "hl") drawn last so they sit on top.
func (d *diagram) write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="fsm" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="state machine; the path of call %s is highlighted">`,
		canvasWidth, canvasHeight, canvasWidth, canvasHeight, esc(d.id))
	b.WriteString("<defs>")
	for _, m := range []string{"a", "h"} {
		fmt.Fprintf(&b, `<marker id="%s-%s" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" class="tip-%s"/></marker>`, m, esc(d.id), m)
	}
	b.WriteString("</defs>")
	var edges []edge
	for _, e := range states.Table() {
		for _, f := range e.From {
			edges = append(edges, edge{f, e.To, e.Event})
		}
	}
	sort.SliceStable(edges, func(i, j int) bool {
		return len(d.steps[key(edges[i])]) == 0 && len(d.steps[key(edges[j])]) > 0
	})
	for _, e := range edges {
		d.edge(&b, e)
	}
	for _, s := range states.States() {
		d.state(&b, s)
	}
	b.WriteString("</svg>")
	_, err := io.WriteString(w, b.String())
	return err
}

func key(e edge) string { return string(e.from) + "|" + string(e.event) }

func (d *diagram) edge(b *strings.Builder, e edge) {
	g, ok := edgeGeom(e.from, e.event)
	if !ok {
		g = autoGeom(e.from, e.to)
	}
	steps := d.steps[key(e)]
	class, marker, label := "edge", "a", string(e.event)
	if len(steps) > 0 {
		class, marker = "edge hl", "h"
		nums := make([]string, len(steps))
		for i, s := range steps {
			nums[i] = strconv.Itoa(s)
		}
		label += " (" + strings.Join(nums, ", ") + ")"
	}
	fmt.Fprintf(b, `<g class="%s" data-edge="%s"><path d="M%s,%s Q%s,%s %s,%s" marker-end="url(#%s-%s)"/><text x="%s" y="%s" text-anchor="%s">%s</text></g>`,
		class, esc(key(e)), f1(g.sx), f1(g.sy), f1(g.cx), f1(g.cy), f1(g.ex), f1(g.ey), marker, esc(d.id), f1(g.lx), f1(g.ly), g.anchor, esc(label))
}

func (d *diagram) state(b *strings.Builder, s states.State) {
	x, y := statePos(s)
	class := "state"
	if d.visited[s] {
		class += " visited"
	}
	if s == d.final {
		class += " final"
	}
	w := boxWidth(s)
	fmt.Fprintf(b, `<g class="%s" data-state="%s"><rect x="%s" y="%s" width="%s" height="%s" rx="8"/><text x="%s" y="%s">%s</text></g>`,
		class, s, f1(x-w/2), f1(y-boxH/2), f1(w), f1(boxH), f1(x), f1(y+5), s)
}

// clip moves from the centre of a box w wide along (dx, dy) to its edge.
func clip(cx, cy, w, dx, dy float64) (float64, float64) {
	t := math.Inf(1)
	if dx != 0 {
		t = math.Min(t, (w/2+2)/math.Abs(dx))
	}
	if dy != 0 {
		t = math.Min(t, (boxH/2+2)/math.Abs(dy))
	}
	if math.IsInf(t, 1) {
		return cx, cy
	}
	return cx + dx*t, cy + dy*t
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
