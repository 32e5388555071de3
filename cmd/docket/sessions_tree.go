package main

// treeOrder puts each subagent's session right under its parent's (in the
// list's own order among siblings), so `docket sessions` shows a tree. A
// child whose parent is not listed stays where it was, as a root. depth
// gives each row's depth in the tree, for indenting.
func treeOrder(rows []sessionSummary) (ordered []sessionSummary, depth []int) {
	ordered = make([]sessionSummary, 0, len(rows)) // an empty list is [] in JSON
	listed := make(map[string]bool, len(rows))
	for _, r := range rows {
		listed[r.ID] = true
	}
	children := map[string][]int{}
	var roots []int
	for i, r := range rows {
		if r.Parent != "" && listed[r.Parent] && r.Parent != r.ID {
			children[r.Parent] = append(children[r.Parent], i)
			continue
		}
		roots = append(roots, i)
	}
	placed := make([]bool, len(rows))
	var walk func(i, d int)
	walk = func(i, d int) {
		if placed[i] {
			return // a cycle of parent links: each row once
		}
		placed[i] = true
		ordered = append(ordered, rows[i])
		depth = append(depth, d)
		for _, c := range children[rows[i].ID] {
			walk(c, d+1)
		}
	}
	for _, i := range roots {
		walk(i, 0)
	}
	// Rows only reachable through a cycle are listed as roots.
	for i := range rows {
		if !placed[i] {
			walk(i, 0)
		}
	}
	return ordered, depth
}
