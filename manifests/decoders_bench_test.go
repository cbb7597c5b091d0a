package manifests

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	sigsjson "sigs.k8s.io/json"

	"github.com/karpsim/karpsim/internal/clusterdump"
)

// itemDecoders are the ways to turn one item of `kubectl get pods -o json`
// into a corev1.Pod that BenchmarkDecodeItem holds against each other;
// decoders_v2_bench_test.go adds encoding/json/v2 when the toolchain has it
// (GOEXPERIMENT=jsonv2).
var itemDecoders = []struct {
	name   string
	decode func(item []byte) error
}{
	{"encoding-json", func(item []byte) error { return json.Unmarshal(item, new(corev1.Pod)) }},
	{"sigs-json-strict", func(item []byte) error { return sigsStrict(item) }},
	{"lean-only", func(item []byte) error { _, _, _, _ = leanJSON(item); return nil }},
	{"lean+encoding-json", func(item []byte) error {
		lean, _, _, _ := leanJSON(item)
		return json.Unmarshal(lean, new(corev1.Pod))
	}},
	{"lean+sigs-json-strict", func(item []byte) error {
		lean, _, _, _ := leanJSON(item)
		return sigsStrict(lean)
	}},
	{"lean+sigs-json-tree", func(item []byte) error {
		lean, _, _, _ := leanJSON(item)
		var tree map[string]any
		return sigsjson.UnmarshalCaseSensitivePreserveInts(lean, &tree)
	}},
}

func sigsStrict(item []byte) error {
	_, err := sigsjson.UnmarshalStrict(item, new(corev1.Pod), sigsjson.DisallowUnknownFields)
	return err
}

// BenchmarkDecodeItem decodes the items of a kubectl JSON dump of pods one
// at a time with each decoder, and BenchmarkDecodeItem/cut is what cutting
// the List into items costs the reader; MB/s counts the dump's bytes.
func BenchmarkDecodeItem(b *testing.B) {
	var dump bytes.Buffer
	if err := clusterdump.PendingPods(&dump, clusterdump.JSON, 500, 10); err != nil {
		b.Fatal(err)
	}
	_, items, _, ok := splitJSONList(dump.Bytes())
	if !ok {
		b.Fatal("the dump is not a List")
	}
	for _, d := range itemDecoders {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(dump.Len()))
			b.ReportAllocs()
			cpu := clusterdump.CPUTime()
			for b.Loop() {
				for _, item := range items {
					if err := d.decode(item); err != nil {
						b.Fatal(err)
					}
				}
			}
			reportCPU(b, cpu, dump.Len())
		})
	}
	b.Run("cut", func(b *testing.B) {
		array := dump.Bytes()[bytes.Index(dump.Bytes(), []byte(`"items": [`))+len(`"items": `):]
		b.SetBytes(int64(dump.Len()))
		cpu := clusterdump.CPUTime()
		for b.Loop() {
			j, n := newJSONReader(bytes.NewReader(array), 0, nil), 0
			for j.pos++; j.space() && j.buf[j.pos] == '{'; j.pos++ {
				if _, _, ok := j.next(); !ok || !j.space() {
					b.Fatal("not cut")
				}
				n++
			}
			if n != len(items) {
				b.Fatalf("%d items cut, want %d", n, len(items))
			}
		}
		reportCPU(b, cpu, dump.Len())
	})
}

// reportCPU reports the process's CPU time per op since cpu, and the MB/s
// it makes of size bytes an op: on a shared machine, a steadier measure
// than the wall clock's.
func reportCPU(b *testing.B, cpu time.Duration, size int) {
	per := (clusterdump.CPUTime() - cpu).Seconds() / float64(b.N)
	b.ReportMetric(per*1e3, "cpu-ms/op")
	b.ReportMetric(float64(size)/1e6/per, "cpu-MB/s")
}
