package conformance

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// The suite's custom-constraint specs: one pod against the default NodePool
// (or one with a label or a requirement added), placed or left pending.

const (
	zone   = apis.LabelTopologyZone
	opIn   = corev1.NodeSelectorOpIn
	opNot  = corev1.NodeSelectorOpNotIn
	opEx   = corev1.NodeSelectorOpExists
	opDNE  = corev1.NodeSelectorOpDoesNotExist
	opGt   = corev1.NodeSelectorOpGt
	opLt   = corev1.NodeSelectorOpLt
	tkey   = "test-key"
	tvalue = "test-value"
)

// placedWith is a case placing one pod on a new node whose label key is want
// (want "" only checks the pod is placed).
func placedWith(name string, pool *apis.NodePool, p *corev1.Pod, key, want string) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		w := newSchedWorld(pool)
		res := w.solve(p)
		c := claimOf(t, res, p)
		if key != "" {
			w.expectLabel(t, c, key, want)
		}
	}}
}

// pendingWith is a case leaving one pod pending.
func pendingWith(name string, pool *apis.NodePool, p *corev1.Pod) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		expectNotScheduled(t, newSchedWorld(pool).solve(p), p)
	}}
}

func schedLabelled() *apis.NodePool { return schedPool(withTemplateLabel(tkey, tvalue)) }

func keyed() *apis.NodePool { return schedPool(onlyRequirement(tkey, opIn, tvalue)) }

func schedZones(z ...string) *apis.NodePool { return schedPool(onlyRequirement(zone, opIn, z...)) }

func integerReq(op corev1.NodeSelectorOperator, v string) *apis.NodePool {
	return schedPool(onlyRequirement(instancetypes.FakeLabelInteger, op, v))
}

var allZones = []string{"test-zone-1", "test-zone-2", "test-zone-3", "unknown"}

var _ = register("scheduling",
	placedWith("template-label-on-unconstrained-pod", schedLabelled(), unschedPod("p", ""), tkey, tvalue),
	pendingWith("template-label-conflicting-selector", schedLabelled(), unschedPod("p", "", nodeSelector(tkey, "different-value"))),
	pendingWith("selector-on-undefined-key", schedPool(), unschedPod("p", "", nodeSelector(tkey, tvalue))),
	placedWith("template-label-matching-requirement", schedLabelled(),
		unschedPod("p", "", nodeRequirements(req(tkey, opIn, tvalue, "another-value"))), tkey, tvalue),
	pendingWith("template-label-conflicting-requirement", schedLabelled(), unschedPod("p", "", nodeRequirements(req(tkey, opIn, "another-value")))),

	placedWith("pool-zone-requirement", schedZones("test-zone-2"), unschedPod("p", ""), zone, "test-zone-2"),
	placedWith("zone-selector-within-pool", schedZones("test-zone-1", "test-zone-2"), unschedPod("p", "", nodeSelector(zone, "test-zone-2")), zone, "test-zone-2"),
	pendingWith("hostname-selector-refused", schedPool(), unschedPod("p", "", nodeSelector(apis.LabelHostname, "red-node"))),
	pendingWith("unknown-zone-selector", schedZones("test-zone-1"), unschedPod("p", "", nodeSelector(zone, "unknown"))),
	pendingWith("zone-selector-outside-pool", schedZones("test-zone-1"), unschedPod("p", "", nodeSelector(zone, "test-zone-2"))),
	placedWith("requirement-in", schedPool(), unschedPod("p", "", nodeRequirements(req(zone, opIn, "test-zone-3"))), zone, "test-zone-3"),
	placedWith("requirement-gt", integerReq(opGt, "8"), unschedPod("p", ""), instancetypes.FakeLabelInteger, "16"),
	placedWith("requirement-lt", integerReq(opLt, "8"), unschedPod("p", ""), instancetypes.FakeLabelInteger, "2"),
	placedWith("requirement-gte", integerReq(apis.NodeSelectorOpGte, "16"), unschedPod("p", ""), instancetypes.FakeLabelInteger, "16"),
	placedWith("requirement-lte", integerReq(apis.NodeSelectorOpLte, "2"), unschedPod("p", ""), instancetypes.FakeLabelInteger, "2"),
	pendingWith("requirement-in-unknown-zone", schedPool(), unschedPod("p", "", nodeRequirements(req(zone, opIn, "unknown")))),
	placedWith("requirement-notin", schedPool(), unschedPod("p", "", nodeRequirements(req(zone, opNot, "test-zone-1", "test-zone-2", "unknown"))), zone, "test-zone-3"),
	pendingWith("requirement-notin-every-zone", schedPool(), unschedPod("p", "", nodeRequirements(req(zone, opNot, allZones...)))),
	placedWith("preference-in-compatible", schedPool(),
		unschedPod("p", "", nodeRequirements(req(zone, opIn, allZones...)), nodePreference(1, req(zone, opIn, "test-zone-2", "unknown"))), zone, "test-zone-2"),
	placedWith("preference-in-incompatible", schedPool(),
		unschedPod("p", "", nodeRequirements(req(zone, opIn, allZones...)), nodePreference(1, req(zone, opIn, "unknown"))), "", ""),
	placedWith("preference-notin-compatible", schedPool(),
		unschedPod("p", "", nodeRequirements(req(zone, opIn, allZones...)), nodePreference(1, req(zone, opNot, "test-zone-1", "test-zone-3"))), zone, "test-zone-2"),
	placedWith("preference-notin-incompatible", schedPool(),
		unschedPod("p", "", nodeRequirements(req(zone, opIn, allZones...)), nodePreference(1, req(zone, opNot, "test-zone-1", "test-zone-2", "test-zone-3"))), "", ""),
	placedWith("selector-preference-requirement-agree", schedPool(),
		unschedPod("p", "", nodeSelector(zone, "test-zone-3"), nodeRequirements(req(zone, opIn, allZones[:3]...)), nodePreference(1, req(zone, opIn, allZones[:3]...))),
		zone, "test-zone-3"),
	conformanceCase{Name: "multidimensional-constraints", Run: func(t *T) {
		p := unschedPod("p", "", nodeSelector(zone, "test-zone-3", apis.LabelInstanceType, "arm-instance-type"),
			nodeRequirements(req(zone, opIn, "test-zone-1", "test-zone-3"), req(apis.LabelInstanceType, opIn, "default-instance-type", "arm-instance-type")),
			nodePreference(1, req(zone, opNot, "unknown"), req(apis.LabelInstanceType, opNot, "unknown")))
		w := newSchedWorld(schedPool())
		c := claimOf(t, w.solve(p), p)
		w.expectLabel(t, c, zone, "test-zone-3")
		w.expectLabel(t, c, apis.LabelInstanceType, "arm-instance-type")
	}},

	conformanceCase{Name: "restricted-label-refused", Run: func(t *T) {
		p := unschedPod("p", "", nodeRequirements(req(apis.LabelHostname, opIn, "test")))
		expectNotScheduled(t, newSchedWorld(schedPool()).solve(p), p)
	}},
	conformanceCase{Name: "restricted-domain-refused", Run: func(t *T) {
		p := unschedPod("p", "", nodeRequirements(req("karpenter.sh/test", opIn, "test")))
		expectNotScheduled(t, newSchedWorld(schedPool()).solve(p), p)
	}},
	domainLabels("kubernetes-domain-labels", ""),
	domainLabels("kubernetes-subdomain-labels", "subdomain."),
	conformanceCase{Name: "well-known-selectors", Run: func(t *T) {
		ps := []*corev1.Pod{
			unschedPod("zone", "", nodeSelector(zone, "test-zone-1")),
			unschedPod("type", "", nodeSelector(apis.LabelInstanceType, "default-instance-type")),
			unschedPod("arch", "", nodeSelector(apis.LabelArch, apis.ArchitectureArm64)),
			unschedPod("os", "", nodeSelector(apis.LabelOS, "linux")),
			unschedPod("capacity", "", nodeSelector(apis.LabelCapacityType, apis.CapacityTypeSpot)),
		}
		for _, p := range ps {
			claimOf(t, newSchedWorld(schedPool()).solve(p), p)
		}
	}},

	pendingWith("in-on-undefined-key", schedPool(), unschedPod("p", "", nodeRequirements(req(tkey, opIn, tvalue)))),
	conformanceCase{Name: "notin-on-undefined-key", Run: func(t *T) {
		p := unschedPod("p", "", nodeRequirements(req(tkey, opNot, tvalue)))
		w := newSchedWorld(schedPool())
		c := claimOf(t, w.solve(p), p)
		if v, _ := w.label(c, tkey); v == tvalue {
			t.Fatalf("node schedLabelled %s=%s", tkey, v)
		}
	}},
	pendingWith("exists-on-undefined-key", schedPool(), unschedPod("p", "", nodeRequirements(req(tkey, opEx)))),
	conformanceCase{Name: "doesnotexist-on-undefined-key", Run: func(t *T) {
		p := unschedPod("p", "", nodeRequirements(req(tkey, opDNE)))
		w := newSchedWorld(schedPool())
		c := claimOf(t, w.solve(p), p)
		if v, ok := w.label(c, tkey); ok {
			t.Fatalf("node schedLabelled %s=%s", tkey, v)
		}
	}},
	placedWith("pool-requirement-on-unconstrained-pod", keyed(), unschedPod("p", ""), tkey, tvalue),
	placedWith("in-matching-value", keyed(), unschedPod("p", "", nodeRequirements(req(tkey, opIn, tvalue))), tkey, tvalue),
	pendingWith("notin-matching-value", keyed(), unschedPod("p", "", nodeRequirements(req(tkey, opNot, tvalue)))),
	placedWith("exists-on-defined-key", keyed(), unschedPod("p", "", nodeRequirements(req(tkey, opEx))), "", ""),
	pendingWith("doesnotexist-on-defined-key", keyed(), unschedPod("p", "", nodeRequirements(req(tkey, opDNE)))),
	pendingWith("in-different-value", keyed(), unschedPod("p", "", nodeRequirements(req(tkey, opIn, "another-value")))),
	placedWith("notin-different-value", keyed(), unschedPod("p", "", nodeRequirements(req(tkey, opNot, "another-value"))), tkey, tvalue),
	conformanceCase{Name: "compatible-pods-share-node", Run: func(t *T) {
		a := unschedPod("a", "", nodeRequirements(req(tkey, opIn, tvalue)))
		b := unschedPod("b", "", nodeRequirements(req(tkey, opNot, "another-value")))
		w := newSchedWorld(schedPool(onlyRequirement(tkey, opIn, tvalue, "another-value")))
		res := w.solve(a, b)
		ca, cb := claimOf(t, res, a), claimOf(t, res, b)
		w.expectLabel(t, ca, tkey, tvalue)
		w.expectLabel(t, cb, tkey, tvalue)
		if ca.Name != cb.Name {
			t.Fatalf("pods on %s and %s", ca.Name, cb.Name)
		}
	}},
	conformanceCase{Name: "incompatible-pods-separate-nodes", Run: func(t *T) {
		a := unschedPod("a", "", nodeRequirements(req(tkey, opIn, tvalue)))
		b := unschedPod("b", "", nodeRequirements(req(tkey, opIn, "another-value")))
		w := newSchedWorld(schedPool(onlyRequirement(tkey, opIn, tvalue, "another-value")))
		res := w.solve(a, b)
		ca, cb := claimOf(t, res, a), claimOf(t, res, b)
		w.expectLabel(t, ca, tkey, tvalue)
		w.expectLabel(t, cb, tkey, "another-value")
		if ca.Name == cb.Name {
			t.Fatalf("both pods on %s", ca.Name)
		}
	}},
	pendingWith("exists-keeps-fixed-value", schedPool(), unschedPod("p", "", nodeRequirements(req(zone, opIn, "non-existent-zone"), req(zone, opEx)))),
)

// domainLabels: a NodePool requiring prefix+kubernetes.io/test and
// prefix+k8s.io/test launches nodes carrying both.
func domainLabels(name, prefix string) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		keys := []string{prefix + "kubernetes.io/test", prefix + "k8s.io/test"}
		np := schedPool(onlyRequirement(keys[0], opIn, tvalue), withRequirement(keys[1], opIn, tvalue))
		for _, k := range keys {
			p := unschedPod("p", "")
			w := newSchedWorld(np)
			w.expectLabel(t, claimOf(t, w.solve(p), p), k, tvalue)
		}
	}}
}
