package instancetypes

import (
	"testing"

	"github.com/karpsim/karpsim/apis"
)

// enclaveOptions enabled keeps the types EC2 lists as supporting Nitro
// Enclaves (virtualized Nitro, at least 4 vCPUs on x86 or 2 on Graviton,
// not burstable): the others keep their offerings, none available.
// Disabled, or left out, every type stays.
func TestNitroEnclavesCompatibility(t *testing.T) {
	names := map[string]bool{"m5.large": false, "m5.xlarge": true, "t3.xlarge": false, "m5.metal": false, "m6g.large": true, "c4.xlarge": false}
	var facts []EC2Facts
	for _, f := range EmbeddedFacts() {
		if _, ok := names[f.InstanceType]; ok {
			facts = append(facts, f)
		}
	}
	if len(facts) != len(names) {
		t.Fatalf("found %d of %d types", len(facts), len(names))
	}
	for label, setting := range map[string]*bool{"left out": nil, "disabled": new(false), "enabled": new(true)} {
		nc := &apis.EC2NodeClass{Spec: apis.EC2NodeClassSpec{AMISelectorTerms: []apis.AMISelectorTerm{{Alias: "al2023@latest"}}}}
		if setting != nil {
			nc.Spec.EnclaveOptions = &apis.EnclaveOptions{Enabled: setting}
		}
		c, err := NewAWS(facts, AWSOptions{NodeClass: nc})
		if err != nil {
			t.Fatal(err)
		}
		for name, supported := range names {
			it := mustGet(t, c, name)
			available := 0
			for _, o := range it.Offerings {
				if o.Available {
					available++
				}
			}
			want := supported || setting == nil || !*setting
			if len(it.Offerings) == 0 || (available > 0) != want || (want && available != len(it.Offerings)) {
				t.Errorf("enclaves %s: %s: %d of %d offerings available, want compatible %v", label, name, available, len(it.Offerings), want)
			}
		}
	}
}
