package instancetypes

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/resources"
)

// goldenFile holds the allocatable resources Karpenter's AWS provider
// documentation publishes for every instance type it knows, computed for
// an AL2023 EC2NodeClass without block device mappings.
const goldenFile = "testdata/karpenter-al2023-allocatable.tsv"

type goldenRow struct {
	line        int
	name        string
	allocatable resources.Vector
}

func readGolden(t *testing.T) []goldenRow {
	t.Helper()
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatalf("golden table: %v", err)
	}
	defer f.Close()
	var rows []goldenRow
	scanner := bufio.NewScanner(f)
	for line := 1; scanner.Scan(); line++ {
		text := scanner.Text()
		if text == "" || strings.HasPrefix(text, "#") || strings.HasPrefix(text, "instanceType\t") {
			continue
		}
		row, err := parseGoldenRow(text)
		if err != nil {
			t.Fatalf("%s:%d: %v", goldenFile, line, err)
		}
		row.line = line
		rows = append(rows, row)
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func parseGoldenRow(text string) (goldenRow, error) {
	cols := strings.Split(text, "\t")
	if len(cols) != 6 {
		return goldenRow{}, fmt.Errorf("%d columns, want 6", len(cols))
	}
	list := corev1.ResourceList{}
	for i, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods} {
		q, err := resource.ParseQuantity(cols[i+1])
		if err != nil {
			return goldenRow{}, fmt.Errorf("%s: %v", name, err)
		}
		list[name] = q
	}
	if cols[5] != "-" {
		for _, pair := range strings.Split(cols[5], ",") {
			name, value, ok := strings.Cut(pair, "=")
			q, err := resource.ParseQuantity(value)
			if !ok || err != nil {
				return goldenRow{}, fmt.Errorf("extended %q is not name=quantity", pair)
			}
			list[corev1.ResourceName(name)] = q
		}
	}
	return goldenRow{name: cols[0], allocatable: resources.FromList(list)}, nil
}

// publishedFacts are the facts as they stood when the published table was
// generated, where they have changed since: the table is held against the
// facts it was computed from, and each entry must still be needed.
var publishedFacts = map[string]struct {
	why    string
	adjust func(*EC2Facts)
}{
	"p5.4xlarge": {
		why: "EC2 first reported 0 GPUs for p5.4xlarge: the table's own labels say instance-gpu-count 0 " +
			"and it lists no nvidia.com/gpu; the facts have the 1 H100 EC2 reports now",
		adjust: func(f *EC2Facts) { f.GPUCount = 0 },
	},
}

// trunkingSincePublished are the types the published table gives no
// vpc.amazonaws.com/pod-eni, which the VPC resource controller's limits
// have listed as trunking since (the provider's current reference, at the
// commit data/ec2-extra-facts.jsonl was taken from, lists their pod-eni).
var trunkingSincePublished = []string{"c8gn.medium", "c8gn.large", "c8gn.xlarge", "c8gn.2xlarge", "c8gn.4xlarge", "c8gn.8xlarge", "c8gn.12xlarge", "c8gn.16xlarge", "c8gn.24xlarge", "c8gn.metal-24xl", "c8gn.48xlarge", "c8gn.metal-48xl", "g6f.large", "g6f.xlarge", "g6f.2xlarge", "g6f.4xlarge", "gr6f.4xlarge", "hpc7g.4xlarge", "hpc7g.8xlarge", "hpc7g.16xlarge", "i4i.large", "p5.4xlarge"}

func init() {
	for _, name := range trunkingSincePublished {
		p := publishedFacts[name]
		adjust := p.adjust
		p.why = strings.TrimPrefix(p.why+"; the published table predates trunking on "+name, "; ")
		p.adjust = func(f *EC2Facts) {
			if adjust != nil {
				adjust(f)
			}
			f.BranchInterfaces = 0
		}
		publishedFacts[name] = p
	}
}

// TestGoldenAllocatable holds the default catalog against Karpenter's
// published allocatable resources of every type, resource by resource.
func TestGoldenAllocatable(t *testing.T) {
	facts := EmbeddedFacts()
	for i := range facts {
		if p, ok := publishedFacts[facts[i].InstanceType]; ok {
			p.adjust(&facts[i])
		}
	}
	asPublished, err := NewAWS(facts, AWSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	current := Default()
	rows := readGolden(t)
	covered := 0
	var missing []string
	for _, row := range rows {
		it, ok := asPublished.Get(row.name)
		if !ok {
			missing = append(missing, row.name)
			continue
		}
		covered++
		want := row.allocatable
		if diff := diffVectors(it.Allocatable(), want); diff != "" {
			t.Errorf("%s:%d: %s: %s", goldenFile, row.line, row.name, diff)
		}
		if p, ok := publishedFacts[row.name]; ok {
			now, _ := current.Get(row.name)
			if diffVectors(now.Allocatable(), want) == "" {
				t.Errorf("%s: the published-facts adjustment is no longer needed (%s)", row.name, p.why)
			}
		}
	}
	if covered < 925 {
		t.Errorf("only %d types of the table are in the facts, want at least 925", covered)
	}
	t.Logf("golden table: %d rows, %d types compared (of %d in the facts), %d not in the facts %v",
		len(rows), covered, len(current), len(missing), missing)
}

func diffVectors(got, want resources.Vector) string {
	names := slices.Concat(got.Names(), want.Names())
	slices.Sort(names)
	var diffs []string
	for _, name := range slices.Compact(names) {
		if g, w := got.Get(name), want.Get(name); g != w {
			gq, wq := got.Quantity(name), want.Quantity(name)
			diffs = append(diffs, fmt.Sprintf("%s got %s want %s", name, gq.String(), wq.String()))
		}
	}
	return strings.Join(diffs, ", ")
}
