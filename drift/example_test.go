package drift_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/drift"
)

// A NodeClaim stamped from its NodePool drifts once the pool's template
// changes, and expires 720h after creation whatever the pool says then. The
// pool's template is that of Karpenter's getting-started "default" pool, and
// 6821555240594823858 is the hash Karpenter stamped on a real one.
func Example() {
	created := time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)
	pool := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	pool.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AWSGroup, Kind: apis.KindEC2NodeClass, Name: "default"}
	pool.Spec.Template.Spec.ExpireAfter = apis.NewNillableDuration(720 * time.Hour)

	claim := &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{
		Name:              "default-x7k2p",
		CreationTimestamp: metav1.NewTime(created),
		Labels:            map[string]string{apis.LabelNodePool: "default"},
	}}
	claim.Spec.ExpireAfter = pool.Spec.Template.Spec.ExpireAfter
	claim.Status.ProviderID = "aws:///us-east-1a/i-0abc"
	claim = drift.Stamp(claim, pool, nil)
	fmt.Println("stamped", claim.Annotations[apis.AnnotationNodePoolHash], claim.Annotations[apis.AnnotationNodePoolHashVersion])

	now := created.Add(30 * time.Minute)
	fmt.Println(drift.Check(drift.Input{NodeClaim: claim, NodePool: pool, Now: now}).Reason == "")

	pool.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule}}
	fmt.Println(drift.Check(drift.Input{NodeClaim: claim, NodePool: pool, Now: now}))

	expired, at := drift.Expiry(claim, now)
	fmt.Println(expired, at.Format(time.RFC3339))
	// Output:
	// stamped 6821555240594823858 v3
	// true
	// drifted (NodePoolDrifted): karpenter.sh/nodepool-hash 6821555240594823858 on NodeClaim "default-x7k2p" != 17932891493180429925, the hash of NodePool "default"'s template (version v3)
	// false 2026-08-31T09:00:00Z
}
