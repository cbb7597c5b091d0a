package clustergen

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestSeedDeterminesCluster checks that a seed gives the same cluster every
// time and that different seeds give different ones.
func TestSeedDeterminesCluster(t *testing.T) {
	encode := func(seed uint64) []byte {
		c, err := Generate(seed)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for seed := uint64(1); seed <= 20; seed++ {
		if a, b := encode(seed), encode(seed); !bytes.Equal(a, b) {
			t.Fatalf("seed %d gave two different clusters", seed)
		}
		if bytes.Equal(encode(seed), encode(seed+1)) {
			t.Fatalf("seeds %d and %d gave the same cluster", seed, seed+1)
		}
	}
}

// TestClustersStayInBounds checks the generator's promises: 1–500 pending
// pods, 1–3 NodePools, a non-empty catalog, every pending pod unbound.
func TestClustersStayInBounds(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		c, err := Generate(seed)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(c.Pending); n < 1 || n > 500 {
			t.Errorf("seed %d: %d pending pods", seed, n)
		}
		if n := len(c.NodePools); n < 1 || n > 3 {
			t.Errorf("seed %d: %d NodePools", seed, n)
		}
		if len(c.Types) == 0 {
			t.Errorf("seed %d: empty catalog", seed)
		}
		for _, p := range c.Pending {
			if p.Spec.NodeName != "" {
				t.Errorf("seed %d: pending pod %s is bound to %s", seed, p.Name, p.Spec.NodeName)
			}
		}
	}
}
