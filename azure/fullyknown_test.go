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
				if len(derivedFacts(it.Name, region)) > 0 {
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

// TestFullyKnownSizesUnchanged checks that the sizes the provider's
// resource SKU tables describe in full build exactly as they did before
// the wider size table was added: the golden was written before it.
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
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("line %d differs:\n got %s\nwant %s", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("got %d lines, want %d", len(gl), len(wl))
	}
}

// derivedFacts is a stand-in until the wider table exists: every size
// is fully known.
func derivedFacts(string, string) []string { return nil }
