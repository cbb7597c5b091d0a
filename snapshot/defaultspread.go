package snapshot

import (
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/scheduling"
)

// addDefaultSpread reads kube-scheduler's default spread constraints from
// the given KubeSchedulerConfiguration, with what pods' selectors for them
// are deduced from: the Services, and the selectors of the ReplicaSets
// and StatefulSets given or made by the given Deployments (a Deployment's
// ReplicaSet selects on its selector plus pod-template-hash, as Kubernetes
// makes it). Without a configuration there are no defaults, as in
// Karpenter unless its SCHEDULER_CONFIG mirrors the scheduler's.
func (b *builder) addDefaultSpread() {
	cfg := b.in.SchedulerConfig
	if cfg == nil {
		return
	}
	constraints := cfg.DefaultConstraints()
	if len(constraints) == 0 {
		return
	}
	d := &scheduling.DefaultSpread{Constraints: constraints, Services: b.in.Services, Controllers: map[string]*metav1.LabelSelector{}}
	for _, rs := range b.in.ReplicaSets {
		if rs.Spec.Selector != nil {
			d.Controllers[scheduling.ControllerKey("ReplicaSet", rs.Namespace, rs.Name)] = rs.Spec.Selector
		}
	}
	for _, ss := range b.in.StatefulSets {
		if ss.Spec.Selector != nil {
			d.Controllers[scheduling.ControllerKey("StatefulSet", ss.Namespace, ss.Name)] = ss.Spec.Selector
		}
	}
	for _, dep := range b.in.Deployments {
		if dep.Spec.Selector == nil {
			continue
		}
		hash := templateHash(&dep.Spec.Template)
		key := scheduling.ControllerKey("ReplicaSet", dep.Namespace, dep.Name+"-"+hash)
		if _, given := d.Controllers[key]; given {
			continue
		}
		sel := dep.Spec.Selector.DeepCopy()
		sel.MatchLabels = maps.Clone(sel.MatchLabels)
		if sel.MatchLabels == nil {
			sel.MatchLabels = map[string]string{}
		}
		sel.MatchLabels["pod-template-hash"] = hash
		d.Controllers[key] = sel
	}
	b.snap.DefaultSpread = d
}
