package scheduling

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// claim is a NodeClaim being filled during a solve: the pods placed on it,
// the requirements they share, and the instance types that can still hold
// them all.
type claim struct {
	tmpl         *template
	name         string
	requirements requirements.Requirements
	pods         []*podInfo
	requests     resources.Vector // the pods' requests, without daemons
	options      []*typeOption
	hostPorts    []hostPort
}

// placeholderHostname is the hostname requirement of the template's next
// claim: every claim carries one so that hostname topology can tell claims
// apart. It is the claim's name and is dropped from the result.
func placeholderHostname(t *template) requirements.Requirement {
	return requirements.MustNew(apis.LabelHostname, corev1.NodeSelectorOpIn, fmt.Sprintf("%s-%d", t.name, t.claims+1))
}

// add places the pod on the claim if it fits, in Karpenter's order of
// checks: taints (startup taints do not count), host ports, requirements
// (undefined well-known labels allowed), then the instance types that can
// hold every pod so far. The claim is unchanged when add fails.
func (c *claim) add(p *podInfo, scratch *[]*typeOption) error {
	if err := tolerates(c.tmpl.taints, p.pod.Spec.Tolerations); err != nil {
		return err
	}
	if err := portConflict(c.hostPorts, p.hostPorts); err != nil {
		return err
	}
	reqs := c.requirements
	if p.reqs.Len() > 0 {
		if err := c.requirements.Compatible(p.reqs, requirements.AllowUndefinedWellKnown); err != nil {
			return err
		}
		reqs = c.requirements.Intersect(p.reqs)
	}
	requests := c.requests.Add(p.requests)
	remaining, why := filterOptions(c.options, reqs, requests, p.reqs.Len() > 0, (*scratch)[:0])
	if len(remaining) == 0 {
		return fmt.Errorf("no instance type satisfied resources %s and requirements %s (%s)", requests.Add(minDaemons(c.options)), reqs, why)
	}
	*scratch = c.options
	c.options = remaining
	c.requirements = reqs
	c.requests = requests
	c.pods = append(c.pods, p)
	c.hostPorts = append(c.hostPorts, p.hostPorts...)
	return nil
}

// filterOptions keeps the options that meet the requirements (when
// checkReqs; otherwise they are known to), fit the requests on top of their
// DaemonSet overhead, and have an available offering the requirements
// allow. It appends to out, whose backing array it may reuse, and explains
// an empty result the way Karpenter does.
func filterOptions(options []*typeOption, reqs requirements.Requirements, requests resources.Vector, checkReqs bool, out []*typeOption) ([]*typeOption, string) {
	var metReqs, fits, offered, reqsAndFits bool
	for _, o := range options {
		itReqs := !checkReqs || o.it.Requirements.IntersectsFast(reqs)
		itFits := requests.Fits(o.room)
		if itReqs && itFits {
			if hasCompatibleOffering(o.it, reqs) {
				out = append(out, o)
				continue
			}
			reqsAndFits = true
		}
		metReqs = metReqs || itReqs
		fits = fits || itFits
		offered = offered || (len(out) == 0 && hasCompatibleOffering(o.it, reqs))
	}
	if len(out) > 0 {
		return out, ""
	}
	return nil, filterFailure(metReqs, fits, offered, reqsAndFits)
}

// filterFailure says which of the three criteria no single instance type met.
func filterFailure(metReqs, fits, offered, reqsAndFits bool) string {
	var missing []string
	if !metReqs {
		missing = append(missing, "met the scheduling requirements")
	}
	if !fits {
		missing = append(missing, "had enough resources")
	}
	if !offered {
		missing = append(missing, "had a required offering")
	}
	switch {
	case len(missing) > 0:
		return "no instance type " + strings.Join(missing, " or ")
	case reqsAndFits:
		return "no instance type which met the scheduling requirements and had enough resources had a required offering"
	default:
		return "no instance type met the requirements, resources and offering at once"
	}
}

// minDaemons is the smallest DaemonSet overhead among the options, per
// resource: the overhead a claim reports in its requests.
func minDaemons(options []*typeOption) resources.Vector {
	if len(options) == 0 {
		return resources.Vector{}
	}
	m := options[0].daemons
	for _, o := range options[1:] {
		m = m.Min(o.daemons)
	}
	return m
}
