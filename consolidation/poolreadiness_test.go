package consolidation

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

// Karpenter's disruption simulations launch from no NodePool that is
// static, being deleted, or whose Ready condition is not True
// (provisioner.go NewScheduler): a drifted node whose only NodePool is
// such has nowhere to go, and with a second NodePool its replacement comes
// from that one. A NodePool whose status has no Ready condition, as a file
// written by hand has none, is taken as Ready.
func TestSimulationsLaunchFromReadyNodePoolsOnly(t *testing.T) {
	cases := map[string]func(np *apis.NodePool){
		"ready":     func(*apis.NodePool) {},
		"no status": func(np *apis.NodePool) { np.Status.Conditions = nil },
		"not ready": func(np *apis.NodePool) {
			np.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "NodeClassNotReady"}}
		},
		"unknown": func(np *apis.NodePool) {
			np.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionUnknown}}
		},
		"deleting": func(np *apis.NodePool) { np.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Minute)} },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			launches := name == "ready" || name == "no status"
			np := newPool("default")
			np.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}}
			mutate(np)
			cluster := func(nps ...*apis.NodePool) Cluster {
				return Cluster{Nodes: []*Node{newNode("node", "default", 4, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("web", "1")}, drifted(time.Hour))},
					NodePools: pools(nps...)}
			}
			d := Evaluate(cluster(np), now, Options{})
			if !launches {
				requireNoCommand(t, d)
				assert.Contains(t, verdict(t, d, "node").Reason, "drift: ")
			} else {
				require.Len(t, d.Commands, 1, "%v", d.Candidates)
				require.Len(t, d.Commands[0].Replacements, 1)
				assert.Equal(t, "default", d.Commands[0].Replacements[0].NodePool)
			}

			other := newPool("other")
			d = Evaluate(cluster(np, other), now, Options{})
			require.Len(t, d.Commands, 1, "%v", d.Candidates)
			require.Len(t, d.Commands[0].Replacements, 1)
			if !launches {
				assert.Equal(t, "other", d.Commands[0].Replacements[0].NodePool)
			}
		})
	}
}
