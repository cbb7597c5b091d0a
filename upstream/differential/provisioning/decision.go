package provisioning

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Decision is what one provisioning decision is compared by.
type Decision struct {
	// Pending is the number of pods decided on.
	Pending int
	// NewNodes is the number of new NodeClaims; Types the instance type each
	// would launch, as "NODEPOOL/TYPE", sorted.
	NewNodes int
	Types    []string
	// OnExisting counts the pods placed on existing nodes and in-flight
	// claims.
	OnExisting int
	// Unschedulable are the pending pods placed nowhere, "namespace/name",
	// sorted.
	Unschedulable []string
	// Cost is the $/hour of the new NodeClaims.
	Cost float64
	// errors are Karpenter's pod errors, "namespace/name: error", for
	// -show.
	errors []string
	// claims describe each new NodeClaim (NodePool, type, price, zones,
	// pods), in the order the side made them, for -show.
	claims []string
}

func (d *Decision) addClaim(pool, typ string, price float64, zones string, options int, pods []string) {
	slices.Sort(pods)
	d.claims = append(d.claims, fmt.Sprintf("%s/%s $%.4f zones=%s options=%d pods(%d)=%s", pool, typ, price, zones, options, len(pods), strings.Join(pods, ",")))
	d.NewNodes++
	d.Types = append(d.Types, pool+"/"+typ)
	d.Cost += price
}

func (d *Decision) finish() {
	slices.Sort(d.Types)
	slices.Sort(d.Unschedulable)
	slices.Sort(d.errors)
	d.Cost = math.Round(d.Cost*1e6) / 1e6
}

// Key identifies the decision: equal keys are equal decisions.
func (d Decision) Key() string {
	return fmt.Sprintf("nodes=%d cost=%.6f types=%s unschedulable=%s", d.NewNodes, d.Cost, strings.Join(d.Types, ","), strings.Join(d.Unschedulable, ","))
}

// Diff describes how b differs from a, briefly.
func Diff(a, b Decision) string {
	var out []string
	if a.NewNodes != b.NewNodes {
		out = append(out, fmt.Sprintf("new nodes %d vs %d", a.NewNodes, b.NewNodes))
	}
	if onlyA, onlyB := minus(a.Types, b.Types), minus(b.Types, a.Types); len(onlyA)+len(onlyB) > 0 {
		out = append(out, fmt.Sprintf("types only in first %s, only in second %s", short(onlyA), short(onlyB)))
	}
	if onlyA, onlyB := minus(a.Unschedulable, b.Unschedulable), minus(b.Unschedulable, a.Unschedulable); len(onlyA)+len(onlyB) > 0 {
		out = append(out, fmt.Sprintf("unschedulable only in first %s (%d), only in second %s (%d)", short(onlyA), len(onlyA), short(onlyB), len(onlyB)))
	}
	if a.Cost != b.Cost {
		rel := 0.0
		if a.Cost != 0 {
			rel = (b.Cost - a.Cost) / a.Cost * 100
		}
		out = append(out, fmt.Sprintf("cost %.4f vs %.4f (%+.2f%%)", a.Cost, b.Cost, rel))
	}
	if a.OnExisting != b.OnExisting {
		out = append(out, fmt.Sprintf("on existing %d vs %d", a.OnExisting, b.OnExisting))
	}
	return strings.Join(out, "; ")
}

// minus is the multiset a less b; both sorted.
func minus(a, b []string) []string {
	var out []string
	i, j := 0, 0
	for i < len(a) {
		switch {
		case j >= len(b) || a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			j++
		default:
			i++
			j++
		}
	}
	return out
}

func short(s []string) string {
	if len(s) <= 4 {
		return "[" + strings.Join(s, " ") + "]"
	}
	return "[" + strings.Join(s[:4], " ") + fmt.Sprintf(" …+%d]", len(s)-4)
}
