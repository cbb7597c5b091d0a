package conformance

import (
	"github.com/stretchr/testify/require"
)

// karpsim has no kube-scheduler default spread constraints; the one spec
// of upstream's injector that holds without them is that nothing is added.
var _ = register("defaultconstraints",
	conformanceCase{Name: "none-configured-nothing-added", Run: func(t *T) {
		w := topoWorld()
		pods := ppods(3, "web", labelled("app", "web"), ownedBy("ReplicaSet"))
		for _, p := range pods {
			pendingPod(p)
		}
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		for _, p := range pods {
			require.Empty(t, p.Spec.TopologySpreadConstraints)
		}
		require.Len(t, nodeNames(pods), 1, "with no spread, the pods share a node")
	}},
)
