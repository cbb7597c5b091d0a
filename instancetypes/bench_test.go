package instancetypes

import (
	"bytes"
	"testing"
)

// BenchmarkDefaultCatalog builds the embedded catalog from parsed facts, as
// Default does once.
func BenchmarkDefaultCatalog(b *testing.B) {
	facts := EmbeddedFacts()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewAWS(facts, AWSOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseFacts(b *testing.B) {
	b.SetBytes(int64(len(embeddedFacts)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseFacts(bytes.NewReader(embeddedFacts), "facts"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadJSON reads the default catalog back from its JSON form.
func BenchmarkReadJSON(b *testing.B) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, Default()); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadJSON(bytes.NewReader(buf.Bytes()), "catalog.json"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheapestOffering(b *testing.B) {
	c := Default()
	reqs := requirementsOf("karpenter.sh/capacity-type", "spot", "on-demand")
	b.ReportAllocs()
	for b.Loop() {
		for _, it := range c {
			it.CheapestOffering(reqs)
		}
	}
}
