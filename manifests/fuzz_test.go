package manifests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/apis"
	budgetpkg "github.com/karpsim/karpsim/budgets"
	"github.com/karpsim/karpsim/internal/clusterdump"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// FuzzDecode feeds arbitrary bytes to Decode: it must never panic, always
// return a Set, report every problem as an *Error naming the stream, take
// well under 5 s, and give the same Set, warnings and errors twice.
func FuzzDecode(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(seeds, "*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		f.Add(mustReadF(f, file))
	}
	for _, c := range badManifests {
		f.Add([]byte(c.yaml))
	}
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		s, err := Decode("fuzz.yaml", data)
		if s == nil {
			t.Fatal("Decode returned a nil Set")
		}
		for _, p := range problems(t, err) {
			if !strings.HasPrefix(p.Error(), "fuzz.yaml: ") {
				t.Fatalf("error does not name the stream: %v", p)
			}
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("%d bytes took %v", len(data), took)
		}
		first := describe(t, s, err)
		s, err = Decode("fuzz.yaml", data)
		if again := describe(t, s, err); again != first {
			t.Fatalf("two decodes of\n%q\ndiffer:\n%s", data, firstDifference(first, again))
		}
	})
}

func mustReadF(f *testing.F, path string) []byte {
	f.Helper()
	data, err := readFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// FuzzBlockYAML holds the converters against sigs.k8s.io/yaml on arbitrary
// documents: whatever blockDocumentToJSON reads, the YAML parser reads the
// same, and a List is decoded the same item by item as on the reference
// path (its managedFields aside).
func FuzzBlockYAML(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(seeds, "*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		f.Add(mustReadF(f, file))
	}
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\n    labels: {app: x, n: \"1\"}\n    managedFields:\n    - manager: m\n  spec:\n    containers:\n    - name: c\n      resources: {requests: {cpu: 500m}}\n"))
	f.Add([]byte("a: 'x\n  y'\nb: \"p\\tq\"\nc: [1, -2, 0x3, 1.5, yes]\nd: 12ab-34\n"))
	f.Add([]byte(`{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "labels": {"x": "y"}}}, {"kind": "Node", "apiVersion": "v1", "metadata": {"name": "n"}}], "metadata": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if j, _, _, ok := blockDocumentToJSON(data); ok {
			want, err := yaml.YAMLToJSONStrict(data)
			if err != nil {
				t.Fatalf("blockDocumentToJSON read what YAML refuses (%v):\n%q", err, data)
			}
			var a, b any
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts(want, &a); err != nil {
				t.Skip()
			}
			if m, ok := a.(map[string]any); ok {
				dropManagedFields(m)
			}
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts(j, &b); err != nil {
				t.Fatalf("blockDocumentToJSON wrote invalid JSON %q for\n%q", j, data)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("blockDocumentToJSON read\n%q\nas %s, YAML as %s", data, j, want)
			}
		}
		// Where managedFields are cut as text, what is inside them is not
		// parsed, so a syntax error there is not reported: such input is
		// left out of the comparison.
		if bytes.Contains(data, []byte("items")) && !bytes.Contains(data, []byte("managedFields")) {
			ref, fast := newLoader(), newLoader()
			ref.reference = true
			ref.decodeStream("fuzz.yaml", data)
			fast.decodeStream("fuzz.yaml", data)
			rs, rerr := ref.done()
			fs, ferr := fast.done()
			if fmt.Sprint(rerr) != fmt.Sprint(ferr) || len(rs.Pods) != len(fs.Pods) || len(rs.Warnings) != len(fs.Warnings) {
				t.Fatalf("the List path decodes\n%q\nwith %v, %d pods, %d warnings; the reference path with %v, %d pods, %d warnings",
					data, ferr, len(fs.Pods), len(fs.Warnings), rerr, len(rs.Pods), len(rs.Warnings))
			}
		}
	})
}

// describe writes everything a decode gave as text: the Set, each object's
// source, the warnings and the errors, so that two decodes compare whole.
func describe(t *testing.T, set *Set, err error) string {
	t.Helper()
	if set == nil {
		t.Fatal("nil Set")
	}
	var b strings.Builder
	out, jerr := json.Marshal(set)
	if jerr != nil {
		t.Fatalf("the Set does not marshal: %v", jerr)
	}
	b.Write(out)
	for _, obj := range allObjects(set) {
		src, _ := set.SourceOf(obj)
		fmt.Fprintf(&b, "\n%T from %s", obj, src)
	}
	fmt.Fprintf(&b, "\nerror: %v", err)
	return b.String()
}

// fuzzListSeeds are Lists kubectl prints, in YAML or JSON, and the seed
// manifests turned into Lists.
func fuzzListSeeds(f *testing.F, format clusterdump.Format) {
	var buf bytes.Buffer
	if err := clusterdump.PendingPods(&buf, format, 3, 2); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	files, err := filepath.Glob(filepath.Join(seeds, "*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		var items []any
		for _, doc := range bytes.Split(mustReadF(f, file), []byte("\n---\n")) {
			var item any
			if err := yaml.Unmarshal(doc, &item); err == nil && item != nil {
				items = append(items, item)
			}
		}
		list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
		var data []byte
		if format == clusterdump.JSON {
			data, err = json.MarshalIndent(list, "", "    ")
		} else {
			data, err = yaml.Marshal(list)
		}
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// checkStreamPaths decodes data on every path a stream can take and
// requires the same result from each: LoadReader reading it a few bytes at
// a time, Decode holding it whole, one worker or several on a List's
// items, and, where no managedFields are cut as text, the reference path
// (a YAML parser, a tree, no shortcuts). Every error names the stream, the
// input is not changed, and the whole takes well under the fuzzer's
// patience: a stream that takes seconds is a stream to refuse.
func checkStreamPaths(t *testing.T, name string, data []byte) {
	start := time.Now()
	original := bytes.Clone(data)
	set, err := LoadReader(name, iotest.HalfReader(bytes.NewReader(data)))
	got := describe(t, set, err)
	for _, p := range problems(t, err) {
		if !strings.HasPrefix(p.Error(), name+": ") {
			t.Fatalf("error does not name the stream: %v", p)
		}
	}
	set, err = Decode(name, data)
	if whole := describe(t, set, err); whole != got {
		t.Fatalf("LoadReader and Decode differ on\n%q\n%s", data, firstDifference(got, whole))
	}
	for _, setup := range []func(*loader){
		func(l *loader) { l.workers = 1 },
		func(l *loader) { l.workers = 3 },
		func(l *loader) { l.reference = true },
	} {
		l := newLoader()
		setup(l)
		if l.reference && bytes.Contains(data, []byte("managedFields")) {
			continue
		}
		l.decodeStream(name, data)
		set, err := l.done()
		if other := describe(t, set, err); other != got {
			t.Fatalf("%d workers, reference %v, differ on\n%q\n%s", l.workers, l.reference, data, firstDifference(got, other))
		}
	}
	if !bytes.Equal(data, original) {
		t.Fatal("decoding changed its input")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("%d bytes took %v", len(data), took)
	}
}

// FuzzLoadReaderJSONList decodes arbitrary JSON streams, seeded with Lists,
// on every path (see checkStreamPaths): the JSON List cutter (jsonsplit.go),
// the lean item decoding (lean.go) and the parallel items.
func FuzzLoadReaderJSONList(f *testing.F) {
	fuzzListSeeds(f, clusterdump.JSON)
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","managedFields":[{"manager":"m"}]}}],"metadata":{}}`))
	f.Add([]byte(`{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a"}},{"metadata":{"name":"a"}}]} {"kind":"List","apiVersion":"v1","items":[]}`))
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}]}]}`))
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1e-9"}}}]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkStreamPaths(t, "fuzz.json", data)
	})
}

// FuzzLoadReaderYAMLList decodes arbitrary YAML streams, seeded with Lists,
// on every path (see checkStreamPaths): the streaming document reader
// (stream.go), the YAML List cutter (lists.go), the block converter
// (blockyaml.go), managedFields cut as text (lean.go) and the parallel
// items.
func FuzzLoadReaderYAMLList(f *testing.F) {
	fuzzListSeeds(f, clusterdump.YAML)
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\n    managedFields:\n    - manager: m\n  spec:\n    containers:\n    - name: c\n      resources: {requests: {cpu: 500m}}\n"))
	f.Add([]byte("---\napiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n- metadata:\n    name: b\n...\n---\nkind: List\napiVersion: v1\nitems: []\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Node\n    metadata:\n      name: 'n\n        m'\n      labels: {a: \"1\", b: yes}\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- &a {apiVersion: v1, kind: Node, metadata: {name: n}}\n- *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkStreamPaths(t, "fuzz.yaml", data)
	})
}

// FuzzKarpenterFields puts arbitrary text into the fields of a NodePool
// that karpsim parses rather than copies: consolidateAfter, expireAfter,
// terminationGracePeriod, a budget's nodes, schedule and duration, a
// requirement with minValues, and a limit. Every problem names the stream,
// the NodePool and the field. A NodePool accepted without a problem holds
// what the parsers downstream read without error (budgets.Parse,
// budgets.NodeCount, requirements.FromNodePool, resources), its durations
// are the text's, none negative, and it marshals and decodes back to
// itself.
func FuzzKarpenterFields(f *testing.F) {
	f.Add("30s", "720h", "48h", "10%", "0 9 * * mon-fri", "8h", "karpenter.k8s.aws/instance-category", "In", "c,m,r", 2, "1000")
	f.Add("Never", "Never", "", "0", "@daily", "1h", "kubernetes.io/arch", "NotIn", "arm64", 0, "100m")
	f.Add("1.5h", "-1h", "0s", "101%", "0 0 30 2 *", "-5m", "node.kubernetes.io/instance-type", "Gt", "x", -1, "-1")
	f.Add("1h30m", "0s", "1m", "5", "*/5 * * * *", "10m", "karpenter.sh/capacity-type", "Exists", "", 3, "1e3")
	f.Add("0s", "720h", "2562047h", "", "", "", "kubernetes.io/hostname", "In", "a,a", 2, "1Ei")
	f.Add("", "", "", "3", "@every 5m", "1h", "karpenter.k8s.aws/instance-cpu", "Lt", "9223372036854775807", 1, "9007199254740993m")
	f.Fuzz(func(t *testing.T, consolidateAfter, expireAfter, grace, nodes, schedule, duration, key, operator, values string, minValues int, cpu string) {
		start := time.Now()
		optional := func(s string) any {
			if s == "" {
				return nil
			}
			return s
		}
		requirement := map[string]any{"key": key, "operator": operator, "values": fuzzValues(values)}
		if minValues != 0 {
			requirement["minValues"] = minValues
		}
		budget := map[string]any{"nodes": nodes, "schedule": optional(schedule), "duration": optional(duration)}
		pool := map[string]any{
			"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": "default"},
			"spec": map[string]any{
				"template": map[string]any{"spec": map[string]any{
					"nodeClassRef":           map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
					"requirements":           []any{requirement},
					"expireAfter":            optional(expireAfter),
					"terminationGracePeriod": optional(grace),
				}},
				"disruption": map[string]any{"consolidateAfter": optional(consolidateAfter), "budgets": []any{budget}},
				"limits":     map[string]any{"cpu": cpu},
			},
		}
		class := `{"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"}, "spec": {"role": "r", "amiSelectorTerms": [{"alias": "al2023@latest"}], "subnetSelectorTerms": [{"tags": {"a": "b"}}], "securityGroupSelectorTerms": [{"tags": {"a": "b"}}]}}`
		data, err := json.Marshal(pool)
		if err != nil {
			t.Fatal(err)
		}
		stream := append([]byte(class+"\n"), data...)
		set, err := Decode("fuzz.json", stream)
		accepted := true
		for _, p := range problems(t, err) {
			if !strings.HasPrefix(p.Error(), "fuzz.json: ") || p.Object == "" || p.Path == "" {
				t.Fatalf("problem without its stream, object or field: %#v", p)
			}
			if !strings.Contains(p.Object, "NodePool") {
				t.Fatalf("the EC2NodeClass is refused: %v", p)
			}
			accepted = false
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("took %v", took)
		}
		if !accepted {
			return
		}
		if len(set.NodePools) != 1 {
			t.Fatalf("%d NodePools", len(set.NodePools))
		}
		np := set.NodePools[0]
		for _, d := range []struct {
			name, text string
			got        apis.NillableDuration
		}{
			{"consolidateAfter", consolidateAfter, np.Spec.Disruption.ConsolidateAfter},
			{"expireAfter", expireAfter, np.Spec.Template.Spec.ExpireAfter},
		} {
			if d.got.Duration != nil && *d.got.Duration < 0 {
				t.Fatalf("%s %q accepted as %v", d.name, d.text, d.got)
			}
			if want, err := apis.ParseNillableDuration(d.text); d.text != "" && (err != nil || d.got.String() != want.String()) {
				t.Fatalf("%s %q read as %v, ParseNillableDuration gives %v (%v)", d.name, d.text, d.got, want, err)
			}
		}
		if g := np.Spec.Template.Spec.TerminationGracePeriod; g != nil && g.Duration < 0 {
			t.Fatalf("terminationGracePeriod %q accepted as %v", grace, g.Duration)
		}
		b := np.Spec.Disruption.Budgets[0]
		if b.Schedule != nil {
			if _, err := budgetpkg.Parse(*b.Schedule); err != nil {
				t.Fatalf("a budget is accepted with a schedule cron refuses: %v", err)
			}
		}
		if b.Duration != nil && b.Duration.Duration < 0 {
			t.Fatalf("budget duration %q accepted as %v", duration, b.Duration.Duration)
		}
		if _, err := budgetpkg.NodeCount(b.Nodes, 10); err != nil {
			t.Fatalf("a budget is accepted with nodes it cannot count: %v", err)
		}
		if _, err := requirements.FromNodePool(np.Spec.Template); err != nil {
			t.Fatalf("a NodePool is accepted with requirements that cannot be built: %v", err)
		}
		if limits := resources.FromList(np.Spec.Limits); limits.HasNegative() {
			t.Fatalf("limits %q accepted as %v", cpu, limits)
		}
		out, err := json.Marshal(np)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Decode("again.json", append([]byte(class+"\n"), out...))
		if err != nil || len(again.NodePools) != 1 {
			t.Fatalf("%s\ndoes not decode back: %v", out, err)
		}
		if !equality.Semantic.DeepEqual(np, again.NodePools[0]) {
			t.Fatalf("%s\ndecodes back as another NodePool", out)
		}
	})
}

// fuzzValues splits a comma-separated value list; "" is no value at all.
func fuzzValues(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
