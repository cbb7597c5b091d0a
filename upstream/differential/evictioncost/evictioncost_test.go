// Package evictioncost holds karpsim's pod eviction cost against
// Karpenter's own (pkg/utils/disruption.EvictionCost) on every combination
// of the two cost annotations and priorities, readable or not, with the
// PodDeletionCostManagement gate off and on.
package evictioncost

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	disruptionutils "sigs.k8s.io/karpenter/pkg/utils/disruption"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
)

// values are annotation values: absent (""), readable 32-bit integers at
// and around the limits, and values Karpenter cannot read.
var values = []string{"", "0", "1", "-1", "100", "-100", "134217728", "2000000000", "2147483647", "-2147483648",
	"2147483648", "-2147483649", "1.5", "+10", "008", "lots", " 5"}

var priorities = []*int32{nil, ptr(0), ptr(1), ptr(-1), ptr(1 << 25), ptr(2000001000), ptr(-2147483648)}

func ptr(v int32) *int32 { return &v }

func TestEvictionCostMatchesKarpenter(t *testing.T) {
	checked := 0
	for _, gate := range []bool{false, true} {
		ctx := options.ToContext(context.Background(), &options.Options{FeatureGates: options.FeatureGates{PodDeletionCostManagement: gate}})
		for _, dc := range values {
			for _, pdc := range values {
				for _, prio := range priorities {
					p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", Annotations: map[string]string{}}}
					if dc != "" {
						p.Annotations[apis.AnnotationDisruptionCost] = dc
					}
					if pdc != "" {
						p.Annotations[corev1.PodDeletionCost] = pdc
					}
					p.Spec.Priority = prio
					want := disruptionutils.EvictionCost(ctx, p)
					got := consolidation.EvictionCost(p, gate)
					if got != want {
						t.Errorf("gate %v, disruption-cost %q, pod-deletion-cost %q, priority %s: karpsim %v, Karpenter %v",
							gate, dc, pdc, prioString(prio), got, want)
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d pods compared", checked)
}

func prioString(p *int32) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}
