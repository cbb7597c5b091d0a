package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileCase is one bad input: the files it writes into a fresh folder
// (DIR in args and file contents names that folder), the command line, and
// the words the error must hold: the file, and the field or object.
type hostileCase struct {
	name  string
	files map[string]string
	// generate writes files too large to spell out.
	generate func(t *testing.T, dir string)
	stdin    string
	args     []string
	want     []string
	// outputs are files (under DIR) the command must not create.
	outputs []string
}

// Deadlines that catch a hang or an explosion, far above what a refusal
// takes (the table's measured maximum is logged): the targets, 2 s
// and 256 MiB, are measured, not asserted, as timing targets belong to
// benchmarks.
const (
	hostileDeadline = 10 * time.Second
	hostileMaxAlloc = 1 << 30
)

func TestHostileInputIsRefusedFast(t *testing.T) {
	cases := hostileCases()
	require.GreaterOrEqual(t, len(cases), 100, "the hostile corpus only grows")
	var slowest hostileMeasure
	var most, peak uint64
	var slowName, mostName, peakName string
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			expand := func(s string) string { return strings.ReplaceAll(s, "DIR", dir) }
			for name, content := range tc.files {
				path := filepath.Join(dir, name)
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(expand(content)), 0o644))
			}
			if tc.generate != nil {
				tc.generate(t, dir)
			}
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = expand(a)
			}
			code, stdout, stderr, m := runMeasured(t, tc.stdin, args)
			if m.took > slowest.took {
				slowest, slowName = m, tc.name
			}
			if m.allocated > most {
				most, mostName = m.allocated, tc.name
			}
			if m.peak > peak {
				peak, peakName = m.peak, tc.name
			}
			t.Logf("%v, %.1f MiB allocated, heap peak +%.1f MiB: %s", m.took.Round(time.Millisecond), mib(m.allocated), mib(m.peak), strings.TrimSpace(stderr))
			assert.Equal(t, 1, code, "exit code; stderr:\n%s", stderr)
			assert.Empty(t, stdout, "standard output on an error")
			for _, w := range tc.want {
				assert.Contains(t, stderr, expand(w))
			}
			for _, out := range tc.outputs {
				assert.NoFileExists(t, filepath.Join(dir, out))
			}
			assert.Less(t, m.allocated, uint64(hostileMaxAlloc), "bytes allocated")
		})
	}
	t.Logf("%d bad inputs; slowest %v (%s); most allocated %.1f MiB (%s); highest heap peak +%.1f MiB (%s)",
		len(cases), slowest.took.Round(time.Millisecond), slowName, mib(most), mostName, mib(peak), peakName)
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

// hostileMeasure is what one refusal cost.
type hostileMeasure struct {
	took time.Duration
	// allocated is every byte allocated; peak is the most the live heap
	// grew, sampled every millisecond.
	allocated, peak uint64
}

// runMeasured runs a command line in-process, failing the test if it has
// not returned by hostileDeadline, and returns what it cost.
func runMeasured(t *testing.T, stdin string, args []string) (code int, stdout, stderr string, m hostileMeasure) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(heap)
	base := heap[0].Value.Uint64()
	done := make(chan struct{})
	var out, errOut bytes.Buffer
	start := time.Now()
	go func() {
		defer close(done)
		code = run(args, strings.NewReader(stdin), &out, &errOut)
	}()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	limit := hostileDeadline
	if raceDetector {
		limit *= 10
	}
	deadline := time.After(limit)
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-tick.C:
			metrics.Read(heap)
			if v := heap[0].Value.Uint64(); v > base {
				m.peak = max(m.peak, v-base)
			}
		case <-deadline:
			t.Fatalf("karpsim %s still running after %v", strings.Join(args, " "), limit)
		}
	}
	m.took = time.Since(start)
	runtime.ReadMemStats(&after)
	m.allocated = after.TotalAlloc - before.TotalAlloc
	return code, out.String(), errOut.String(), m
}

const hostileNodeClass = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  role: KarpenterNodeRole-c
`

// hostileNodePool is a valid NodePool with its EC2NodeClass, whose spec
// ends with extra (indented four spaces under spec.template.spec, or
// two under spec when it starts with "  ").
func hostileNodePool(name, templateSpec, spec string) string {
	return hostileNodeClass + `---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: ` + name + `}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
` + templateSpec + spec
}

// hostilePod is a pod with one container whose requests are given, and
// more metadata lines.
func hostilePod(requests, metadata string) string {
	return `apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: default
` + metadata + `spec:
  containers:
  - name: c
    image: x
    resources:
      requests: ` + requests + "\n"
}

func hostileDeployment(replicas string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: ` + replicas + `
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: x, resources: {requests: {cpu: "1"}}}
`
}

// hostileScenario is a scenario with the default NodePool's manifests and
// the given top-level fields.
func hostileScenario(fields string) string {
	return "name: hostile\nseed: 1\n" + fields + "inline: |\n" + indent(hostileNodePool("default", "", "")+"---\n"+hostileDeployment("0"), "  ")
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}

// hostileCatalog is a one-type JSON catalog whose on-demand price is
// price, as written.
func hostileCatalog(t *testing.T, price string) string {
	t.Helper()
	code, out, stderr := runCmd("instance-types", "-o", "json")
	require.Equal(t, 0, code, stderr)
	end := strings.Index(out, "\n  },\n  {")
	require.Positive(t, end)
	one := out[:end] + "\n  }\n]\n"
	return strings.Replace(one, `"price": 0.204`, `"price": `+price, 1)
}

// billionLaughs nests aliases nine deep: 9^9 strings once expanded.
const billionLaughs = `apiVersion: v1
kind: ConfigMap
metadata: {name: lol, namespace: default}
data:
  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
  f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
  g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
  h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
  i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`

func hostileCases() []hostileCase {
	plan := func(file string) []string { return []string{"plan", "-f", "DIR/" + file, "-o", "json"} }
	garbage := make([]byte, 4096)
	r := rand.New(rand.NewPCG(14, 4))
	for i := range garbage {
		garbage[i] = byte(r.Uint32())
	}
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	cases := []hostileCase{
		{name: "empty file", files: map[string]string{"empty.yaml": ""}, args: plan("empty.yaml"),
			want: []string{"DIR/empty.yaml: no objects"}},
		{name: "only comments and markers", files: map[string]string{"c.yaml": "# nothing\n---\n# still nothing\n---\n...\n"}, args: plan("c.yaml"),
			want: []string{"DIR/c.yaml: no objects"}},
		{name: "only white space", files: map[string]string{"w.yaml": "\n\n   \n\t\n"}, args: plan("w.yaml"),
			want: []string{"DIR/w.yaml: no objects"}},
		{name: "empty JSON list", files: map[string]string{"l.json": `{"apiVersion": "v1", "kind": "List", "items": []}`}, args: plan("l.json"),
			want: []string{"DIR/l.json: no objects"}},
		{name: "empty stdin", args: []string{"plan", "-f", "-"}, want: []string{"<stdin>", "empty"}},
		{name: "binary garbage", files: map[string]string{"garbage.yaml": string(garbage)}, args: plan("garbage.yaml"),
			want: []string{"DIR/garbage.yaml: document 1"}},
		{name: "NUL bytes", files: map[string]string{"nul.yaml": "apiVersion: v1\x00\nkind: Pod\n"}, args: plan("nul.yaml"),
			want: []string{"DIR/nul.yaml: document 1", "control characters"}},
		{name: "billion laughs", files: map[string]string{"lol.yaml": billionLaughs}, args: plan("lol.yaml"),
			want: []string{"DIR/lol.yaml: document 1", "aliasing"}},
		{name: "UTF-16 byte order mark", files: map[string]string{"utf16.yaml": "\xff\xfea\x00p\x00i\x00"}, args: plan("utf16.yaml"),
			want: []string{"DIR/utf16.yaml", "UTF-16"}},
		{name: "deep nesting YAML", files: map[string]string{"deep.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: " + deep + "\n"}, args: plan("deep.yaml"),
			want: []string{"DIR/deep.yaml: document 1"}},
		{name: "deep nesting JSON", files: map[string]string{"deep.json": `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "deep"}, "data": ` + deep + "}"}, args: plan("deep.json"),
			want: []string{"DIR/deep.json: document 1"}},
		{name: "truncated JSON", files: map[string]string{"t.json": `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"`}, args: plan("t.json"),
			want: []string{"DIR/t.json: document 1"}},
		{name: "JSON with duplicate keys", files: map[string]string{"dup.json": `{"apiVersion": "v1", "kind": "Pod", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}`},
			args: plan("dup.json"), want: []string{"DIR/dup.json: document 1", `"kind"`}},
		{name: "input over --max-input-bytes", generate: func(t *testing.T, dir string) {
			writeLarge(t, filepath.Join(dir, "big.yaml"), 50<<20, hostilePod(`{cpu: "1"}`, "")+"---\n# @\n")
		}, args: []string{"plan", "-f", "DIR/big.yaml", "--max-input-bytes", "1048576"}, want: []string{"DIR/big.yaml: more than 1 MiB: karpsim reads at most 1 MiB"}},
		{name: "a pod of a million containers", generate: func(t *testing.T, dir string) {
			var b strings.Builder
			b.WriteString("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  containers:\n")
			for i := range 1_000_000 {
				fmt.Fprintf(&b, "  - {name: c%d, image: x}\n", i)
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte(b.String()), 0o644))
		}, args: plan("pod.yaml"), want: []string{"DIR/pod.yaml: document 1 (line 1): an object of more than 16 MiB"}},
		{name: "standard input over --max-input-bytes", stdin: strings.Repeat(hostilePod(`{cpu: "1"}`, "")+"---\n", 20_000),
			args: []string{"plan", "-f", "-", "--max-input-bytes", "1048576"}, want: []string{"<stdin>: more than 1 MiB: karpsim reads at most 1 MiB"}},
		{name: "50 MB object", generate: func(t *testing.T, dir string) {
			writeLarge(t, filepath.Join(dir, "big.yaml"), 50<<20, hostilePod(`{cpu: "1"}`, "  annotations:\n    big: @\n"))
		}, args: plan("big.yaml"), want: []string{"DIR/big.yaml: line 7: longer than 16 MiB: karpsim reads objects of at most 16 MiB"}},
		{name: "object over --max-object-bytes", files: map[string]string{"p.yaml": hostilePod(`{cpu: "1"}`, "")},
			args: []string{"plan", "-f", "DIR/p.yaml", "--max-object-bytes", "100"}, want: []string{"DIR/p.yaml: document 1 (line 1): an object of more than 100 bytes"}},
		{name: "List item over --max-object-bytes", files: map[string]string{"l.yaml": "apiVersion: v1\nkind: List\nitems:\n- " + indent(hostilePod(`{cpu: "1"}`, ""), "  ")[2:]},
			args: []string{"plan", "-f", "DIR/l.yaml", "--max-object-bytes", "100"}, want: []string{"DIR/l.yaml: document 1 (line 1) item 1: an object of more than 100 bytes"}},
		{name: "annotations over 256 KiB", files: map[string]string{"a.yaml": hostilePod(`{cpu: "1"}`, "  annotations: {big: "+strings.Repeat("z", 300<<10)+"}\n")}, args: plan("a.yaml"),
			want: []string{"DIR/a.yaml: Pod/default/p: metadata.annotations: 307203 bytes in all, at most 262144"}},
		{name: "objects over --max-objects", files: map[string]string{"many.yaml": strings.Repeat(hostilePod(`{cpu: "1"}`, "")+"---\n", 5)},
			args: []string{"plan", "-f", "DIR/many.yaml", "--max-objects", "3"}, want: []string{"DIR/many.yaml: document 4 (line 37): more than 3 objects"}},
		{name: "cpu 1e-99999999", files: map[string]string{"tiny.yaml": hostilePod(`{cpu: 1e-99999999}`, "")}, args: plan("tiny.yaml"),
			want: []string{"DIR/tiny.yaml: document 1: line 11: the number 1e-99999999 has an exponent below -1000"}},
		{name: "cpu \"1e-99999999\" quoted", files: map[string]string{"tiny.yaml": hostilePod(`{cpu: "1e-99999999"}`, "")}, args: plan("tiny.yaml"),
			want: []string{"DIR/tiny.yaml: document 1: line 11: the number 1e-99999999 has an exponent below -1000"}},
		{name: "cpu 1e-99999999 in a JSON List item", files: map[string]string{"tiny.json": `{"apiVersion": "v1", "kind": "List", "items": [` +
			`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "d"}, "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1e-99999999"}}}]}}]}`},
			args: plan("tiny.json"), want: []string{"DIR/tiny.json: document 1: line 1: the number 1e-99999999 has an exponent below -1000"}},
		{name: "cpu 1e99999999", files: map[string]string{"huge.yaml": hostilePod(`{cpu: 1e99999999}`, "")}, args: plan("huge.yaml"),
			want: []string{"DIR/huge.yaml", "Pod/default/p", "spec.containers[0] (c).resources.requests.cpu"}},
		{name: "exponent past int64", files: map[string]string{"exp.yaml": hostilePod(`{memory: 1e99999999999999999999}`, "")}, args: plan("exp.yaml"),
			want: []string{"DIR/exp.yaml", "Pod/default/p", "memory"}},
		{name: "negative request", files: map[string]string{"neg.yaml": hostilePod(`{cpu: "-1"}`, "")}, args: plan("neg.yaml"),
			want: []string{"DIR/neg.yaml", "Pod/default/p", "requests.cpu", "negative"}},
		{name: "quantity that is not one", files: map[string]string{"q.yaml": hostilePod(`{cpu: lots}`, "")}, args: plan("q.yaml"),
			want: []string{"DIR/q.yaml", "Pod/default/p", "requests"}},
		{name: "replicas 2000000000", files: map[string]string{"d.yaml": hostileDeployment("2000000000")}, args: plan("d.yaml"),
			want: []string{"DIR/d.yaml: Deployment/default/web: spec.replicas: 2000000000 would take the pods to place past 200000"}},
		{name: "replicas past --max-pods", files: map[string]string{"d.yaml": hostileDeployment("50")}, args: []string{"plan", "-f", "DIR/d.yaml", "--max-pods", "10"},
			want: []string{"DIR/d.yaml", "Deployment/default/web", "spec.replicas", "past 10"}},
		{name: "negative replicas", files: map[string]string{"d.yaml": hostileDeployment("-3")}, args: plan("d.yaml"),
			want: []string{"DIR/d.yaml", "Deployment/default/web", "spec.replicas"}},
		{name: "replicas past int32", files: map[string]string{"d.yaml": hostileDeployment("99999999999999999999")}, args: plan("d.yaml"),
			want: []string{"DIR/d.yaml", "Deployment/default/web", "spec.replicas"}},
		{name: "unknown kind only", files: map[string]string{"k.yaml": "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g}\n"}, args: plan("k.yaml"),
			want: []string{"DIR/k.yaml: no objects: it holds no manifest of a kind karpsim reads (it skipped Gizmo/g)"}},
		{name: "no kind", files: map[string]string{"k.yaml": "apiVersion: v1\nmetadata: {name: g}\n"}, args: plan("k.yaml"),
			want: []string{"DIR/k.yaml: document 1", "no kind"}},
		{name: "duplicate NodePool names", files: map[string]string{"np.yaml": hostileNodePool("twin", "", "") + "---\n" + strings.TrimPrefix(hostileNodePool("twin", "", ""), hostileNodeClass)},
			args: plan("np.yaml"), want: []string{"DIR/np.yaml", "NodePool/twin"}},
		{name: "invalid cron in a budget", files: map[string]string{"np.yaml": hostileNodePool("cron", "", "  disruption:\n    budgets:\n    - {nodes: \"1\", schedule: \"61 * * * *\", duration: 1h}\n")},
			args: plan("np.yaml"), want: []string{"DIR/np.yaml", "NodePool/cron", "spec.disruption.budgets[0].schedule"}},
		{name: "invalid duration", files: map[string]string{"np.yaml": hostileNodePool("dur", "", "  disruption:\n    consolidateAfter: 5 parsecs\n")},
			args: plan("np.yaml"), want: []string{"DIR/np.yaml", "NodePool/dur", "spec.disruption.consolidateAfter"}},
		{name: "invalid operator", files: map[string]string{"np.yaml": hostileNodePool("op", "      - {key: kubernetes.io/arch, operator: Like, values: [amd64]}\n", "")},
			args: plan("np.yaml"), want: []string{"DIR/np.yaml", "NodePool/op", "spec.template.spec.requirements[1].operator"}},
		{name: "minValues above the values", files: map[string]string{"np.yaml": hostileNodePool("mv", "      - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large], minValues: 3}\n", "")},
			args: plan("np.yaml"), want: []string{"DIR/np.yaml", "NodePool/mv", "spec.template.spec.requirements[1]"}},
		{name: "unknown nodeClassRef", files: map[string]string{"np.yaml": strings.Replace(strings.TrimPrefix(hostileNodePool("ref", "", ""), hostileNodeClass+"---\n"), "name: default}", "name: nowhere}", 1)},
			args: plan("np.yaml"), want: []string{"DIR/np.yaml", "NodePool/ref", "nowhere"}},
		{name: "huge label value", files: map[string]string{"l.yaml": hostilePod(`{cpu: "1"}`, "  labels: {app: "+strings.Repeat("x", 64)+"}\n")}, args: plan("l.yaml"),
			want: []string{"DIR/l.yaml", "Pod/default/p", "metadata.labels"}},
		{name: "invalid label key", files: map[string]string{"l.yaml": hostilePod(`{cpu: "1"}`, "  labels: {\"bad key!\": x}\n")}, args: plan("l.yaml"),
			want: []string{"DIR/l.yaml", "Pod/default/p", "metadata.labels"}},
		{name: "label key prefix too long", files: map[string]string{"l.yaml": hostilePod(`{cpu: "1"}`, "  labels: {"+strings.Repeat("a", 254)+".io/k: x}\n")}, args: plan("l.yaml"),
			want: []string{"DIR/l.yaml", "Pod/default/p", "metadata.labels"}},
		{name: "NodePool template label too long", files: map[string]string{"np.yaml": hostileNodePool("lbl", "", "") + ""},
			generate: func(t *testing.T, dir string) {
				np := strings.Replace(hostileNodePool("lbl", "", ""), "  template:\n", "  template:\n    metadata: {labels: {team: "+strings.Repeat("y", 100)+"}}\n", 1)
				require.NoError(t, os.WriteFile(filepath.Join(dir, "np.yaml"), []byte(np), 0o644))
			}, args: plan("np.yaml"), want: []string{"DIR/np.yaml", "NodePool/lbl", "spec.template.metadata.labels"}},
		{name: "List with an item that is not an object", files: map[string]string{"list.yaml": "apiVersion: v1\nkind: List\nitems:\n- 42\n"}, args: plan("list.yaml"),
			want: []string{"DIR/list.yaml", "item 1", "not an object"}},
		{name: "PodList with a NodePool in it", files: map[string]string{"list.json": `{"apiVersion": "v1", "kind": "PodList", "items": [{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "np"}}]}`},
			args: plan("list.json"), want: []string{"DIR/list.json", "NodePool/np"}},
		{name: "a folder with one bad file", files: map[string]string{"dir/a.yaml": hostilePod(`{cpu: "1"}`, ""), "dir/b.yaml": "kind: [\n"},
			args: plan("dir"), want: []string{"DIR/dir/b.yaml: document 1"}},
		{name: "missing file", args: plan("nowhere.yaml"), want: []string{"DIR/nowhere.yaml"}},
		{name: "NaN price in a catalog", generate: func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "cat.json"), []byte(hostileCatalog(t, `"NaN"`)), 0o644))
		}, args: []string{"plan", "--catalog", "DIR/cat.json", "-o", "json"}, want: []string{"DIR/cat.json", "a1.2xlarge", "price"}},
		{name: "negative price in a catalog", generate: func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "cat.json"), []byte(hostileCatalog(t, "-0.5")), 0o644))
		}, args: []string{"plan", "--catalog", "DIR/cat.json", "-o", "json"}, want: []string{"DIR/cat.json", "a1.2xlarge", "price"}},
		{name: "infinite price in a catalog", generate: func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "cat.json"), []byte(hostileCatalog(t, "1e999")), 0o644))
		}, args: []string{"instance-types", "--catalog", "DIR/cat.json", "-o", "json"}, want: []string{"DIR/cat.json", "price"}},
		{name: "empty catalog", files: map[string]string{"cat.json": "[]"}, args: []string{"plan", "--catalog", "DIR/cat.json"}, want: []string{"DIR/cat.json"}},
		{name: "truncated catalog", files: map[string]string{"cat.json": `[{"name": "m5.large", "capacity": {`}, args: []string{"instance-types", "--catalog", "DIR/cat.json"}, want: []string{"DIR/cat.json"}},
		{name: "empty scenario", files: map[string]string{"s.yaml": ""}, args: []string{"simulate", "-f", "DIR/s.yaml"},
			want: []string{"DIR/s.yaml: invalid scenario: duration must be positive"}},
		{name: "billion laughs in a scenario", files: map[string]string{"s.yaml": "name: lol\nduration: 1h\nx:\n" + strings.SplitN(billionLaughs, "data:\n", 2)[1]},
			args: []string{"simulate", "-f", "DIR/s.yaml"}, want: []string{"DIR/s.yaml: invalid scenario", "aliasing"}},
		{name: "scenario inline with 1e-99999999", files: map[string]string{"s.yaml": strings.Replace(hostileScenario("duration: 1h\n"), `cpu: "1"`, `cpu: "1e-99999999"`, 1)},
			args: []string{"simulate", "-f", "DIR/s.yaml"}, want: []string{"DIR/s.yaml: inline: document 3: line 30: the number 1e-99999999"}},
		{name: "NaN spot price", files: map[string]string{"spot.json": `{"SpotPriceHistory": [{"SpotPrice": "NaN", "InstanceType": "m5.large", "ProductDescription": "Linux/UNIX", "AvailabilityZone": "us-east-1a", "Timestamp": "2026-01-01T00:00:00Z"}]}`},
			args: []string{"instance-types", "--spot-prices", "DIR/spot.json"}, want: []string{"DIR/spot.json: entry 0: field SpotPrice: invalid price \"NaN\""}},
		{name: "empty --nodeclass", files: map[string]string{"nc.yaml": "---\n"}, args: []string{"instance-types", "--nodeclass", "DIR/nc.yaml"},
			want: []string{"DIR/nc.yaml: no objects"}},
		{name: "scenario of 100,000h", files: map[string]string{"s.yaml": hostileScenario("duration: 100000h\n")},
			args: []string{"simulate", "-f", "DIR/s.yaml", "-o", "json", "--report", "DIR/report.html"}, want: []string{"DIR/s.yaml: invalid scenario: duration 100000h0m0s is longer than 8784h0m0s"}, outputs: []string{"report.html"}},
		{name: "scenario past --max-duration", files: map[string]string{"s.yaml": hostileScenario("duration: 2h\n")},
			args: []string{"simulate", "-f", "DIR/s.yaml", "--max-duration", "1h"}, want: []string{"DIR/s.yaml: invalid scenario: duration 2h0m0s is longer than 1h0m0s"}},
		{name: "negative scenario duration", files: map[string]string{"s.yaml": hostileScenario("duration: -1h\n")},
			args: []string{"compare", "-f", "DIR/s.yaml", "--report", "DIR/report.html"}, want: []string{"DIR/s.yaml", "duration"}, outputs: []string{"report.html"}},
		{name: "scenario step scaling to 2000000000", files: map[string]string{"s.yaml": hostileScenario("duration: 1h\nsteps:\n- {at: 1m, scale: {deployment: web, replicas: 2000000000}}\n")},
			args: []string{"simulate", "-f", "DIR/s.yaml"}, want: []string{"DIR/s.yaml: invalid scenario: steps[0]: 2000000000 replicas of Deployment default/web is more than 200000"}},
		{name: "scenario with sampleEvery 1ns", files: map[string]string{"s.yaml": hostileScenario("duration: 1h\nsampleEvery: 1ns\n")},
			args: []string{"simulate", "-f", "DIR/s.yaml"}, want: []string{"DIR/s.yaml", "sampleEvery"}},
		{name: "sweep of a million runs", files: map[string]string{"s.yaml": hostileScenario("duration: 1h\n")},
			generate: func(t *testing.T, dir string) {
				var b strings.Builder
				b.WriteString("name: absurd\nscenarios: [s.yaml]\nseeds: [")
				for i := range 1000 {
					fmt.Fprintf(&b, "%d,", i+1)
				}
				b.WriteString("0]\nvariants:\n")
				for i := range 1000 {
					fmt.Fprintf(&b, "- {name: v%d}\n", i)
				}
				require.NoError(t, os.WriteFile(filepath.Join(dir, "sweep.yaml"), []byte(b.String()), 0o644))
			},
			args: []string{"sweep", "-f", "DIR/sweep.yaml", "--output-file", "DIR/out.json", "--report", "DIR/r.html"}, want: []string{"DIR/sweep.yaml: invalid sweep: 1000 variants × 1001 seeds = 1001000 runs for each scenario, more than 100000"}, outputs: []string{"out.json", "r.html"}},
		{name: "sweep workloadScale 1e9", files: map[string]string{"s.yaml": hostileScenario("duration: 1h\n"), "sweep.yaml": "name: absurd\nscenarios: [s.yaml]\nvariants:\n- {name: big, workloadScale: 1e9}\n"},
			args: []string{"sweep", "-f", "DIR/sweep.yaml"}, want: []string{"DIR/sweep.yaml", "workloadScale"}},
		{name: "report of garbage", files: map[string]string{"r.json": "{\"runs\": ["}, args: []string{"report", "-f", "DIR/r.json", "--output-file", "DIR/r.html"},
			want: []string{"DIR/r.json"}, outputs: []string{"r.html"}},
		{name: "disrupt of an empty file", files: map[string]string{"e.yaml": "---\n"}, args: []string{"disrupt", "-f", "DIR/e.yaml"}, want: []string{"DIR/e.yaml: no objects"}},
		{name: "nodepool-file with nothing in it", files: map[string]string{"np.yaml": "# nothing\n"}, args: []string{"plan", "--nodepool-file", "DIR/np.yaml"},
			want: []string{"DIR/np.yaml: no NodePool, EC2NodeClass, NodeOverlay or KubeSchedulerConfiguration in it"}},
	}
	cases = append(cases, validationHostileCases()...)
	cases = append(cases, overflowHostileCases()...)
	cases = append(cases, boundsHostileCases()...)
	return cases
}

// writeLarge writes a file of size bytes: text cut at its first "@", the
// "@" replaced with as many 'x' as make up the size.
func writeLarge(t *testing.T, path string, size int, text string) {
	t.Helper()
	head, tail, ok := strings.Cut(text, "@")
	require.True(t, ok)
	data := make([]byte, 0, size)
	data = append(data, head...)
	data = append(data, bytes.Repeat([]byte("x"), size-len(head)-len(tail))...)
	data = append(data, tail...)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// Each limit flag reaches its library option: an input refused at a
// lower value is planned at a higher one, and a limit under 1 is a usage
// error.
func TestLimitFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var pods []string
	for _, name := range []string{"a", "b", "c"} {
		pods = append(pods, strings.Replace(hostilePod(`{cpu: "1"}`, ""), "name: p", "name: "+name, 1))
	}
	file := filepath.Join(dir, "pods.yaml")
	require.NoError(t, os.WriteFile(file, []byte(strings.Join(pods, "---\n")+"---\n"+hostileDeployment("3")), 0o644))
	size := strconv.Itoa(len(strings.Join(pods, "---\n")) + len(hostileDeployment("3")) + 4)
	for _, tc := range []struct {
		flag, low, high, want string
	}{
		{"--max-input-bytes", "100", size, "more than 100 bytes"},
		{"--max-objects", "3", "4", "more than 3 objects"},
		{"--max-object-bytes", "100", "1000", "an object of more than 100 bytes"},
		{"--max-pods", "5", "6", "3 would take the pods to place past 5"},
	} {
		code, stdout, stderr := runCmd("plan", "-f", file, "-o", "json", tc.flag, tc.low)
		assert.Equal(t, 1, code, "%s %s: %s", tc.flag, tc.low, stderr)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, tc.want)
		code, _, stderr = runCmd("plan", "-f", file, "-o", "json", tc.flag, tc.high)
		assert.Equal(t, 0, code, "%s %s: %s", tc.flag, tc.high, stderr)
		code, _, stderr = runCmd("plan", "-f", file, tc.flag, "0")
		assert.Equal(t, 2, code, "%s 0: %s", tc.flag, stderr)
		assert.Contains(t, stderr, tc.flag+" 0: want at least 1")
	}
	code, _, stderr := runCmd("simulate", "--max-duration", "0s")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "--max-duration 0s: want more than 0")
}
