package manifests_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/karpsim/karpsim/internal/clusterdump"
	"github.com/karpsim/karpsim/manifests"
)

// BenchmarkLoad reads what `kubectl get pods -A -o yaml` and `-o json` print
// for 20,000 pending pods of 40 Deployments (managedFields, status, owner
// references, token volumes: about 4 KB of YAML a pod).
func BenchmarkLoad(b *testing.B) {
	for _, f := range []clusterdump.Format{clusterdump.YAML, clusterdump.JSON} {
		const pods = 20000
		var buf bytes.Buffer
		if err := clusterdump.PendingPods(&buf, f, pods, 40); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(fmt.Sprintf("%s/pods=%d", f, pods), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			start, cpu := time.Now(), clusterdump.CPUTime()
			for b.Loop() {
				set, err := manifests.Decode("pods."+f.String(), data)
				if err != nil || len(set.Pods) != pods {
					b.Fatalf("%d pods, %v", len(set.Pods), err)
				}
			}
			b.ReportMetric(float64(pods)*float64(b.N)/time.Since(start).Seconds(), "objects/s")
			b.ReportMetric((clusterdump.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
