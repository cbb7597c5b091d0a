package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/internal/clusterdump"
)

// The CLI's concurrent paths, many at once: many files, each a stream of
// documents, a YAML List or a JSON List kubectl prints, decoded on every
// core with standard input beside them; problems in many of them; a
// scenario whose inline manifests hold a problem the reader finds while
// workers decode; compare's runs side by side. Each command line gives the
// same exit code, stdout and stderr on GOMAXPROCS 1 to 8, the problems
// those the files hold, in file order. Run under -race in CI
// (.ci/race-packages), it checks the paths for data races too.
func TestConcurrentPathsStress(t *testing.T) {
	procs := []int{1, 2, 3, 4, 5, 6, 7, 8}
	files, pods := 12, 10
	if testing.Short() {
		procs, files, pods = []int{1, 2, 5, 8}, 8, 6
	}
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good"), filepath.Join(dir, "bad")
	var nodePool bytes.Buffer
	require.NoError(t, clusterdump.NodePool(&nodePool))
	writeStressFile(t, good, "00-nodepool.yaml", nodePool.String())
	for f := range files {
		writeStressFile(t, good, fmt.Sprintf("%02d-pods.%s", f+1, stressFormats[f%3]), stressPods(f%3, fmt.Sprintf("ns-%d", f), pods, nil))
	}
	stdin := stressPods(2, "ns-stdin", pods, nil)
	// The problems, each in a file of its own among good pods: a worker's
	// (a quantity that does not parse, YAML that does not) and the
	// reader's (a tiny exponent, an object over --max-object-bytes).
	lots := func(i int) string {
		if i == 3 {
			return "lots"
		}
		return ""
	}
	tiny := func(i int) string {
		if i == 2 {
			return "1e-99999999"
		}
		return ""
	}
	huge := func(i int) string {
		if i == 4 {
			return "huge"
		}
		return ""
	}
	writeStressFile(t, bad, "a-decode-list.yaml", stressPods(1, "bad-a", pods, lots))
	writeStressFile(t, bad, "b-decode-docs.yaml", stressPods(0, "bad-b", pods, lots))
	writeStressFile(t, bad, "c-tiny-list.json", stressPods(2, "bad-c", pods, tiny))
	writeStressFile(t, bad, "d-tiny-docs.yaml", stressPods(0, "bad-d", pods, tiny))
	writeStressFile(t, bad, "e-malformed.yaml", stressPods(0, "bad-e", 2, nil)+"---\napiVersion: v1\nkind: Pod\nmetadata: {name: [\n---\n"+stressPods(0, "bad-e2", pods, nil))
	writeStressFile(t, bad, "f-huge-docs.yaml", stressPods(0, "bad-f", pods, huge))
	writeStressFile(t, bad, "g-huge-list.yaml", stressPods(1, "bad-g", pods, huge))
	scenario := filepath.Join(dir, "scenario.yaml")
	require.NoError(t, os.WriteFile(scenario, []byte(strings.Replace(hostileScenario("duration: 1h\n"), `cpu: "1"`, `cpu: "1e-99999999"`, 1)), 0o600))

	cases := []struct {
		name  string
		args  []string
		stdin string
		code  int
		// want are what stderr must hold, in order.
		want []string
		// slow runs, with -short, on the fewest and the most GOMAXPROCS only.
		slow bool
	}{
		{name: "many files and standard input", args: []string{"plan", "-f", good, "-f", "-", "-o", "json"}, stdin: stdin},
		{name: "problems in many files", args: []string{"plan", "-f", good, "-f", bad, "-f", "-", "--max-object-bytes", "4096"}, stdin: stdin, code: 1, want: []string{
			"a-decode-list.yaml: Pod/bad-a/pod-3: spec.containers[0].resources.requests[cpu]: \"lots\" is not a quantity",
			"b-decode-docs.yaml: Pod/bad-b/pod-3: spec.containers[0].resources.requests[cpu]: \"lots\" is not a quantity",
			"c-tiny-list.json: document 1: line 3: the number 1e-99999999 has an exponent below -1000",
			"d-tiny-docs.yaml: document 3: line 6: the number 1e-99999999 has an exponent below -1000",
			"e-malformed.yaml: document 3: line 8: did not find expected node content",
			"f-huge-docs.yaml: document 5 (line 10): an object of more than 4 KiB",
			"g-huge-list.yaml: document 1 (line 1) item 5: an object of more than 4 KiB",
		}},
		{name: "a scenario's inline manifests", args: []string{"simulate", "-f", scenario}, code: 1, want: []string{
			"scenario.yaml: inline: document 3: line 30: the number 1e-99999999",
		}},
		{name: "compare", args: []string{"compare", "-f", defaultScenarioPath, "-o", "json"}, slow: true},
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range cases {
		var first string
		for _, n := range procs {
			if c.slow && testing.Short() && n != procs[0] && n != procs[len(procs)-1] {
				continue
			}
			runtime.GOMAXPROCS(n)
			var stdout, stderr bytes.Buffer
			code := run(c.args, strings.NewReader(c.stdin), &stdout, &stderr)
			require.Equal(t, c.code, code, "%s on GOMAXPROCS %d: %s", c.name, n, stderr.String())
			got := stdout.String() + "\nstderr:\n" + stderr.String()
			if first == "" {
				first = got
				at := 0
				for _, w := range c.want {
					i := strings.Index(stderr.String()[at:], w)
					require.GreaterOrEqual(t, i, 0, "%s: %q not in stderr after byte %d:\n%s", c.name, w, at, stderr.String())
					at += i + len(w)
				}
				continue
			}
			require.Equal(t, first, got, "%s on GOMAXPROCS %d differs from GOMAXPROCS %d", c.name, n, procs[0])
		}
	}
}

var stressFormats = []string{"yaml", "yaml", "json"}

// stressPods writes n pending Pods in namespace ns as a stream of
// documents (format 0), a YAML List (1) or a JSON List as kubectl prints
// it, kind last (2). cpu, when not nil, gives a Pod's CPU request in place
// of 250m when it returns anything; "huge" gives it an annotation of 8 KiB.
func stressPods(format int, ns string, n int, cpu func(int) string) string {
	var docs []string
	for i := range n {
		request, annotations := "250m", "{}"
		if cpu != nil {
			switch c := cpu(i); c {
			case "":
			case "huge":
				annotations = fmt.Sprintf(`{"note": %q}`, strings.Repeat("x", 8<<10))
			default:
				request = c
			}
		}
		docs = append(docs, fmt.Sprintf(`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pod-%d", "namespace": %q, "annotations": %s}, `+
			`"spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": %q, "memory": "256Mi"}}}]}}`, i, ns, annotations, request))
	}
	switch format {
	case 0:
		return "---\n" + strings.Join(docs, "\n---\n") + "\n"
	case 1:
		return "apiVersion: v1\nkind: List\nitems:\n- " + strings.Join(docs, "\n- ") + "\n"
	default:
		return `{"apiVersion": "v1", "items": [` + strings.Join(docs, ",\n") + `], "kind": "List", "metadata": {"resourceVersion": ""}}` + "\n"
	}
}

func writeStressFile(t *testing.T, dir, name, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600))
}
