package instancetypes

import "testing"

func TestExotic(t *testing.T) {
	c := Default()
	for name, want := range map[string]bool{
		"m5.metal": true, "c7a.metal-48xl": true, "g4dn.xlarge": true, "p5.48xlarge": true, "inf2.xlarge": true,
		"trn1.2xlarge": true, "g4ad.xlarge": true,
		"m5.large": false, "c7a.48xlarge": false, "t4g.nano": false, "m6i.24xlarge": false,
	} {
		it, ok := c.Get(name)
		if !ok {
			t.Errorf("%s is not in the catalog", name)
			continue
		}
		if got := it.Exotic(); got != want {
			t.Errorf("%s: Exotic() = %v, want %v", name, got, want)
		}
	}
}
