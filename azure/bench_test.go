package azure

import "testing"

// BenchmarkCatalog builds a region's catalog from the parsed embedded data,
// as every command on Azure input does once.
func BenchmarkCatalog(b *testing.B) {
	mustData()
	for b.Loop() {
		if _, err := Catalog(DefaultRegion, Settings{}); err != nil {
			b.Fatal(err)
		}
	}
}
