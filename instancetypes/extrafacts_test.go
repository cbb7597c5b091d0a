package instancetypes

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/karpsim/karpsim/apis"
)

func TestWithExtraFacts(t *testing.T) {
	base, err := ParseFacts(strings.NewReader(goodLine), "facts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	line := `{"instanceType":"x1.large","vpcLimits":true,"networkCardENIs":[3,2],"branchInterfaces":9,"maxEFAInterfaces":1,"sustainedClockSpeedMhz":3100}`
	got, err := withExtraFacts(base, strings.NewReader("\n"+line+"\n"), "extra.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	f := got[0]
	if !f.InVPCLimits || !slices.Equal(f.NetworkCardENIs, []int64{3, 2}) || f.BranchInterfaces != 9 || f.MaxEFAInterfaces != 1 || f.SustainedClockSpeedMhz != 3100 {
		t.Errorf("merged %+v", f)
	}
	if base[0].InVPCLimits || base[0].NetworkCardENIs != nil {
		t.Error("withExtraFacts changed its input")
	}
	// x1 is a Xen family with ENA; without a hypervisor (bare metal) it
	// has no Nitro Enclaves; it takes every placement strategy.
	if f.ENAUnsupported || f.NitroEnclaves || !slices.Equal(f.PlacementStrategies, apis.PlacementStrategies) {
		t.Errorf("family rules %+v", f)
	}
	replace := func(old, new string) string { return strings.Replace(line, old, new, 1) }
	for _, tc := range []struct{ name, input, want string }{
		{"unknown type", replace(`x1.large`, `x9.large`), `extra.jsonl:1: instanceType: "x9.large" is not in the main facts table`},
		{"no type", `{"vpcLimits":true}`, "extra.jsonl:1: instanceType: missing"},
		{"unknown field", replace(`"vpcLimits"`, `"vpcLimit"`), "extra.jsonl:1: vpcLimit: unknown field"},
		{"repeated", line + "\n" + line, `extra.jsonl:2: instanceType: "x1.large" is also on line 1`},
		{"default card disagrees", replace(`[3,2]`, `[4]`), "networkCardENIs[0]: 4 interfaces on the default card, but the main table's maxENIs is 3"},
		{"empty card", replace(`[3,2]`, `[3,0]`), "networkCardENIs[1]: 0 is below 1"},
		{"negative", replace(`"branchInterfaces":9`, `"branchInterfaces":-9`), "branchInterfaces: -9 is negative"},
		{"bad strategy", replace(`"vpcLimits":true`, `"placementStrategies":["host"]`), `placementStrategies[0]: "host" is not cluster, partition or spread`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := withExtraFacts(base, strings.NewReader(tc.input), "extra.jsonl")
			if !errors.Is(err, ErrInvalidFacts) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("withExtraFacts: %v\nwant ErrInvalidFacts containing %q", err, tc.want)
			}
		})
	}
}

// TestFactRules checks the family rules on real types.
func TestFactRules(t *testing.T) {
	facts := map[string]EC2Facts{}
	for _, f := range EmbeddedFacts() {
		facts[f.InstanceType] = f
	}
	for _, tc := range []struct {
		name                   string
		ena, enclaves, cluster bool
	}{
		{"m5.large", true, false, true},    // 2 Intel vCPUs: too few for an enclave
		{"m5.xlarge", true, true, true},    // 4 vCPUs
		{"c6g.large", true, true, true},    // Graviton: 2 vCPUs suffice
		{"m5.metal", true, false, true},    // bare metal: no enclaves
		{"t3.2xlarge", true, false, false}, // burstable
		{"m7i-flex.2xlarge", true, true, false},
		{"c4.8xlarge", false, false, true}, // Xen, Intel VF
		{"m4.16xlarge", true, false, true},
		{"m4.large", false, false, true},
		{"i3.large", true, false, true}, // Xen with ENA
	} {
		f, ok := facts[tc.name]
		if !ok {
			t.Fatalf("%s not in the facts", tc.name)
		}
		if !f.ENAUnsupported != tc.ena || f.NitroEnclaves != tc.enclaves || slices.Contains(f.PlacementStrategies, apis.PlacementStrategyCluster) != tc.cluster {
			t.Errorf("%s: ENA %v, enclaves %v, strategies %v; want ENA %v, enclaves %v, cluster %v",
				tc.name, !f.ENAUnsupported, f.NitroEnclaves, f.PlacementStrategies, tc.ena, tc.enclaves, tc.cluster)
		}
	}
}

// TestExtraFactsCoverage pins how much of the catalog the supplementary
// table covers, so that a refresh that loses data is noticed.
func TestExtraFactsCoverage(t *testing.T) {
	var vpc, trunk, efa, clock int
	for _, f := range EmbeddedFacts() {
		if f.InVPCLimits {
			vpc++
		}
		if f.BranchInterfaces > 0 {
			trunk++
		}
		if f.MaxEFAInterfaces > 0 {
			efa++
		}
		if f.SustainedClockSpeedMhz > 0 {
			clock++
		}
	}
	// 10 old types report no clock speed (the reference gives them 0).
	if vpc != 1355 || trunk != 1258 || efa != 297 || clock != 1353 {
		t.Errorf("types with VPC limits %d, trunking %d, EFA %d, clock speed %d; want 1355, 1258, 297, 1353", vpc, trunk, efa, clock)
	}
}
