package consolidation

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestEvictionsSpendThePDBsAllowance(t *testing.T) {
	budget := func(name, app string, maxUnavailable int) *policyv1.PodDisruptionBudget {
		v := intstr.FromInt32(int32(maxUnavailable))
		return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &v, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
	}
	web := pods(3, "web", "100m")
	pending := newPod("web-pending", "100m")
	both := newPod("both", "100m", withLabel("tier", "x"))
	lone := newPod("lone", "100m", withLabel("app", "lone"))
	all := append(append([]*corev1.Pod{}, web...), pending, both, lone)
	bound := map[*corev1.Pod]bool{web[0]: true, web[1]: true, web[2]: true, both: true, lone: true}
	tier := budget("tier", "", 5)
	tier.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "x"}}
	e := NewEvictions([]*policyv1.PodDisruptionBudget{budget("web", "web", 2), tier}, all, bound)
	// Five pods expected (pending one included), four healthy: with two
	// unavailable allowed, three must stay healthy, so one eviction goes.
	if why := e.Evict(web[0]); why != "" {
		t.Fatalf("first eviction refused: %s", why)
	}
	if why := e.Evict(web[1]); !strings.Contains(why, "PDB default/web (0 disruptions allowed)") {
		t.Fatalf("second eviction: %q, want refused by default/web", why)
	}
	if why := e.Evict(pending); why != "" {
		t.Errorf("a pending pod is not the PDB's: %q", why)
	}
	if why := e.Evict(both); !strings.Contains(why, "2 PDBs") {
		t.Errorf("a pod two PDBs select: %q", why)
	}
	if why := e.Evict(lone); why != "" {
		t.Errorf("a pod no PDB selects: %q", why)
	}
}
