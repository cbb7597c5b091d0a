package main

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// unifiedDiff returns the line diff of a and b in the unified format
// (diff -u), with the file names given; "" when they are equal. The edit
// script is a longest common subsequence, which suits files of a few
// hundred lines such as a NodePool.
func unifiedDiff(nameA, nameB, a, b string) string {
	if a == b {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	ops := lineOps(x, y)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
	for start := 0; start < len(ops); {
		// Find the next change, then extend the hunk while changes are
		// closer than twice the context.
		first := start
		for first < len(ops) && ops[first].kind == ' ' {
			first++
		}
		if first == len(ops) {
			break
		}
		last := first
		for i := first; i < len(ops); i++ {
			if ops[i].kind != ' ' {
				last = i
			} else if i-last > 2*diffContext {
				break
			}
		}
		from, to := max(first-diffContext, 0), min(last+diffContext+1, len(ops))
		writeHunk(&out, ops[from:to])
		start = to
	}
	return out.String()
}

// lineOp is one line of the edit script: ' ' kept, '-' removed from a,
// '+' added from b; ia and ib are the line's 0-based index in a and b
// (for '+', ia is where it goes in a; for '-', ib where it was in b).
type lineOp struct {
	kind   byte
	line   string
	ia, ib int
}

func lineOps(x, y []string) []lineOp {
	// Lines the texts share at their start and end are kept as they are,
	// so that a small edit of a large file costs little.
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	var ops []lineOp
	for i := range pre {
		ops = append(ops, lineOp{' ', x[i], i, i})
	}
	for _, op := range middleOps(x[pre:len(x)-suf], y[pre:len(y)-suf]) {
		op.ia, op.ib = op.ia+pre, op.ib+pre
		ops = append(ops, op)
	}
	for k := suf; k > 0; k-- {
		ops = append(ops, lineOp{' ', x[len(x)-k], len(x) - k, len(y) - k})
	}
	return ops
}

// middleOps is the edit script of x and y by their longest common
// subsequence.
func middleOps(x, y []string) []lineOp {
	// lcs[i][j] is the length of the longest common subsequence of x[i:]
	// and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []lineOp
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ops = append(ops, lineOp{' ', x[i], i, j})
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			// Removals before additions, as diff -u prints them.
			ops = append(ops, lineOp{'-', x[i], i, j})
			i++
		default:
			ops = append(ops, lineOp{'+', y[j], i, j})
			j++
		}
	}
	return ops
}

// writeHunk prints one hunk with its @@ header.
func writeHunk(out *strings.Builder, ops []lineOp) {
	countA, countB := 0, 0
	for _, op := range ops {
		if op.kind != '+' {
			countA++
		}
		if op.kind != '-' {
			countB++
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(ops[0].ia, countA), hunkRange(ops[0].ib, countB))
	for _, op := range ops {
		fmt.Fprintf(out, "%c%s\n", op.kind, op.line)
	}
}

// hunkRange is "start,count" with start 1-based, as diff -u writes it: an
// empty range starts at the line before it.
func hunkRange(start, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if count == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
