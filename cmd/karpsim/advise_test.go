package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdviseGolden advises on every scenario under testdata/advise and
// compares the JSON with the scenario's expected.json.
func TestAdviseGolden(t *testing.T) {
	runGolden(t, "advise")
}

// The built-in example, as a user sees it first: the table and the JSON.
func TestAdviseExampleGolden(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ golden, output string }{{"example.txt", "table"}, {"example.json", "json"}} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"advise", "-o", c.output}, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "no -f given: advising on the built-in example") {
			t.Errorf("stderr does not say the example is used: %s", stderr.String())
		}
		matchGolden(t, filepath.Join("testdata", "advise", c.golden), stdout.Bytes(), "advise -o "+c.output)
	}
}

func TestAdviseRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{{"advise", "--top", "0"}, {"advise", "--max-candidates", "-1"}, {"advise", "-o", "xml"},
		{"advise", "--patch", "-o", "json"}, {"advise", "--rank", "0"}, {"advise", "--rank", "6"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, nil, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage): %s", args, code, stderr.String())
		}
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	b := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n"
	want := `--- x
+++ y
@@ -1,5 +1,5 @@
 a
-b
+B
 c
 d
 e
@@ -9,3 +9,4 @@
 i
 j
 k
+l
`
	if got := unifiedDiff("x", "y", a, b); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := unifiedDiff("x", "y", a, a); got != "" {
		t.Errorf("equal texts: got %q", got)
	}
}
