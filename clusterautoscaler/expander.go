package clusterautoscaler

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/resources"
)

// expand runs the expanders in turn, each keeping the options it likes
// best among those the one before kept, and breaks the remaining tie at
// random (seeded), as CA does. It returns the option and the expanders'
// reasons.
func (a *Autoscaler) expand(options []option) (option, string) {
	var whys []string
	for _, name := range a.st.expanders {
		var why string
		switch name {
		case ExpanderMostPods:
			options, why = mostPods(options)
		case ExpanderLeastWaste:
			options, why = leastWaste(options)
		case ExpanderPrice:
			options, why = cheapest(options)
		case ExpanderPriority:
			options, why = a.highestPriority(options)
		case ExpanderRandom:
			why = fmt.Sprintf("random (%d options)", len(options))
		}
		whys = append(whys, why)
		if len(options) == 1 {
			break
		}
	}
	best := options[0]
	if len(options) > 1 {
		best = options[a.rng.IntN(len(options))]
		whys = append(whys, fmt.Sprintf("random among %d tied", len(options)))
	}
	return best, strings.Join(whys, ", then ")
}

// keepBest keeps the options of the lowest score.
func keepBest(options []option, score func(option) float64) ([]option, float64) {
	best := math.Inf(1)
	var out []option
	for _, o := range options {
		switch s := score(o); {
		case s < best:
			best, out = s, []option{o}
		case s == best:
			out = append(out, o)
		}
	}
	return out, best
}

func mostPods(options []option) ([]option, string) {
	out, best := keepBest(options, func(o option) float64 { return -float64(len(o.pods)) })
	return out, fmt.Sprintf("most-pods: %s %s %d pods", names(out), verb(out, "fits", "fit"), int(-best))
}

// leastWaste keeps the options that leave the smallest share of cpu plus
// memory idle, capacity against the pods' requests.
func leastWaste(options []option) ([]option, string) {
	waste := func(o option) (float64, float64) {
		var req resources.Vector
		for _, p := range o.pods {
			req = req.Add(podRequests(p))
		}
		cpu := float64(o.g.capacity.CPU()) * float64(o.nodes)
		mem := float64(o.g.capacity.Memory()) * float64(o.nodes)
		return (cpu - float64(req.CPU())) / cpu, (mem - float64(req.Memory())) / mem
	}
	out, _ := keepBest(options, func(o option) float64 { c, m := waste(o); return c + m })
	c, m := waste(out[0])
	return out, fmt.Sprintf("least-waste: %s %s %.0f%% cpu and %.0f%% memory idle", names(out), verb(out, "leaves", "leave"), c*100, m*100)
}

// cheapest keeps the options of the lowest price per pod placed. CA's
// price expander also weighs a preferred node size and works only on GCE
// and GKE; this is the price half of it.
func cheapest(options []option) ([]option, string) {
	perPod := func(o option) float64 { return o.g.price * float64(o.nodes) / float64(max(len(o.pods), 1)) }
	out, best := keepBest(options, perPod)
	return out, fmt.Sprintf("price: %s at $%.4f/hour a pod", names(out), best)
}

// highestPriority keeps the options whose group matches the highest
// priority; when no group matches any, all stay.
func (a *Autoscaler) highestPriority(options []option) ([]option, string) {
	prio := func(o option) (int, bool) {
		p, found := 0, false
		for _, r := range a.st.priorities {
			if r.re.MatchString(o.g.spec.Name) && (!found || r.priority > p) {
				p, found = r.priority, true
			}
		}
		return p, found
	}
	var out []option
	best, any := 0, false
	for _, o := range options {
		p, ok := prio(o)
		switch {
		case !ok:
		case !any || p > best:
			best, any, out = p, true, []option{o}
		case p == best:
			out = append(out, o)
		}
	}
	if !any {
		return options, "priority: no node group matches the priorities"
	}
	return out, fmt.Sprintf("priority: %s %s priority %d", names(out), verb(out, "has", "have"), best)
}

// names lists the options' node groups: "a", "a and b", "a, b and c".
func names(options []option) string {
	out := make([]string, len(options))
	for i, o := range options {
		out[i] = o.g.spec.Name
	}
	if len(out) == 1 {
		return out[0]
	}
	return strings.Join(out[:len(out)-1], ", ") + " and " + out[len(out)-1]
}

func verb(options []option, one, many string) string {
	if len(options) == 1 {
		return one
	}
	return many
}

// balance spreads the chosen option's nodes over the node groups similar to
// its own that could take the same pods (--balance-similar-node-groups):
// each node goes to the similar group with the fewest nodes that has
// room.
func (a *Autoscaler) balance(best option, options []option, total int) []option {
	similar := []option{{g: best.g}}
	for _, o := range options {
		if o.g != best.g && o.nodes > 0 && similarGroups(best.g, o.g) {
			similar = append(similar, option{g: o.g})
		}
	}
	if len(similar) == 1 {
		return []option{best}
	}
	room := make([]int, len(similar))
	for i, o := range similar {
		room[i] = a.room(o.g, total)
	}
	for range best.nodes {
		pick := -1
		for i, o := range similar {
			if o.nodes >= room[i] {
				continue
			}
			if pick < 0 || o.g.target+o.nodes < similar[pick].g.target+similar[pick].nodes {
				pick = i
			}
		}
		if pick < 0 {
			break
		}
		similar[pick].nodes++
	}
	var out []option
	for _, o := range similar {
		if o.nodes > 0 {
			o.pods = best.pods
			out = append(out, o)
		}
	}
	return out
}

// balancingIgnoredLabels differ between otherwise identical groups: CA's
// defaults and its AWS provider's.
var balancingIgnoredLabels = []string{apis.LabelHostname, apis.LabelTopologyZone, "topology.kubernetes.io/region",
	labelEKSNodeGroup, "alpha.eksctl.io/nodegroup-name", "k8s.amazonaws.com/eniConfig", "topology.ebs.csi.aws.com/zone",
	"failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"}

// similarGroups: the same cpu, memory within 1.5%, allocatable within 5%,
// and the same labels but those ignored, and the same taints.
func similarGroups(x, y *group) bool {
	if x.capacity.CPU() != y.capacity.CPU() ||
		!within(x.capacity.Memory(), y.capacity.Memory(), DefaultMemoryDifferenceRatio) ||
		!within(x.allocatable.CPU(), y.allocatable.CPU(), DefaultMaxFreeDifferenceRatio) ||
		!within(x.allocatable.Memory(), y.allocatable.Memory(), DefaultMaxFreeDifferenceRatio) {
		return false
	}
	strip := func(l map[string]string) map[string]string {
		out := maps.Clone(l)
		for _, k := range balancingIgnoredLabels {
			delete(out, k)
		}
		return out
	}
	return maps.Equal(strip(x.template.Labels), strip(y.template.Labels)) &&
		slices.EqualFunc(x.template.Taints, y.template.Taints, func(a, b corev1.Taint) bool { return a.MatchTaint(&b) && a.Value == b.Value })
}

func within(a, b int64, ratio float64) bool {
	lo, hi := min(a, b), max(a, b)
	return float64(hi-lo) <= ratio*float64(lo)
}
