package azure

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/karpsim/karpsim/instancetypes"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/fullyknown.golden from the current catalog")

// dumpInstanceType writes every part of a built instance type that a
// plan reads, in a stable text form.
func dumpInstanceType(it *instancetypes.InstanceType) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name %s\nrequirements %s\ncapacity %s\nallocatable %s\n", it.Name, it.Requirements, it.Capacity, it.Allocatable())
	fmt.Fprintf(&b, "kubeReserved %s\nsystemReserved %s\neviction %s\n", it.Overhead.KubeReserved, it.Overhead.SystemReserved, it.Overhead.EvictionThreshold)
	keys := make([]string, 0, len(it.LabelChoices))
	for k := range it.LabelChoices {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "choice %s %v\n", k, it.LabelChoices[k])
	}
	for _, o := range it.Offerings {
		fmt.Fprintf(&b, "offering %+v\n", o)
	}
	return b.String()
}

// fullyKnownSettings are the node class settings the golden covers.
var fullyKnownSettings = []struct {
	name string
	s    Settings
}{
	{"default", Settings{}},
	{"kubenet-azurelinux-fips", Settings{NetworkPlugin: NetworkPluginKubenet, ImageFamily: ImageFamilyAzureLinux, FIPSMode: FIPSModeFIPS, NodeResourceGroup: "MC_rg_cluster_eastus", OSDiskSizeGB: 64}},
}

// fullyKnownDump lists, for every region and the settings above, a digest
// of each built size whose facts are the provider's resource SKU tables
// (no derived facts), and the full text of eastus's entries under the
// default settings.
func fullyKnownDump(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, set := range fullyKnownSettings {
		for _, region := range Regions() {
			c := mustCatalog(t, region, set.s)
			for _, it := range c {
				if len(DerivedFacts(it.Name)) > 0 {
					continue
				}
				text := dumpInstanceType(it)
				sum := sha256.Sum256([]byte(text))
				fmt.Fprintf(&b, "%s %s %s %x\n", set.name, region, it.Name, sum[:8])
				if set.name == "default" && region == DefaultRegion {
					for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
						fmt.Fprintf(&b, "  %s\n", line)
					}
				}
			}
		}
	}
	return b.String()
}

// blocks splits a dump into its entries: "settings region size" → the
// digest line and any full-text lines under it.
func blocks(dump string) (map[string]string, []string) {
	out := map[string]string{}
	var order []string
	var key string
	for _, line := range strings.SplitAfter(dump, "\n") {
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "  ") {
			f := strings.Fields(line)
			key = strings.Join(f[:3], " ")
			order = append(order, key)
		}
		out[key] += line
	}
	return out, order
}

// TestFullyKnownSizesUnchanged checks that the sizes the provider's
// resource SKU tables describe in full build exactly as they did before
// the wider size table was added (the golden was written before it), in
// every region and under both settings. The only entries allowed beyond
// the golden's are westcentralus's sizes of the reference table that its
// own table lacks, which the wider catalog now sells there when priced.
func TestFullyKnownSizesUnchanged(t *testing.T) {
	got := fullyKnownDump(t)
	const path = "testdata/fullyknown.golden"
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gotBlocks, gotOrder := blocks(got)
	wantBlocks, wantOrder := blocks(string(want))
	if len(wantOrder) < 700 {
		t.Fatalf("the golden has %d entries; it was written with 768", len(wantOrder))
	}
	for _, key := range wantOrder {
		if gotBlocks[key] != wantBlocks[key] {
			t.Errorf("%s changed:\n got %q\nwant %q", key, gotBlocks[key], wantBlocks[key])
		}
	}
	d := mustData()
	inTable := func(region, name string) bool {
		return slices.ContainsFunc(d.tables[region], func(r skuRecord) bool { return r.Name == name })
	}
	var added int
	for _, key := range gotOrder {
		if _, ok := wantBlocks[key]; ok {
			continue
		}
		f := strings.Fields(key)
		if f[1] != "westcentralus" || inTable("westcentralus", f[2]) || !inTable(referenceRegion, f[2]) {
			t.Errorf("%s is new and is not a reference-table size added to westcentralus", key)
		}
		added++
	}
	if added != 6 {
		t.Errorf("%d entries beyond the golden, want 6 (3 sizes under 2 settings)", added)
	}
}
