package apis

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Some CRD rules constrain how a field is written, which its decoded Go
// value no longer shows: "1.5h" and "90m" decode to durations alike, but
// only the second matches the CRD's pattern. ValidateRaw checks those rules
// on the generic JSON tree of an object, before it is decoded.

var (
	nillableDurationPattern = regexp.MustCompile(`^(([0-9]+(s|m|h))+|Never)$`)
	durationPattern         = regexp.MustCompile(`^([0-9]+(s|m|h))+$`)
	budgetDurationPattern   = regexp.MustCompile(`^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`)
)

const (
	nillableDurationHelp = `use whole numbers with units s, m or h, e.g. "30s", "720h" or "1h30m", or "Never"`
	durationHelp         = `use whole numbers with units s, m or h, e.g. "30s", "720h" or "1h30m"`
	budgetDurationHelp   = `use hours and minutes, e.g. "8h", "30m" or "1h30m"`
)

// rawRule is a pattern that the string at path (a dotted path where "[*]"
// matches every list element) must match when it is present.
type rawRule struct {
	path    string
	pattern *regexp.Regexp
	problem string
	help    string
}

var (
	nodePoolV1Rules = []rawRule{
		{"spec.disruption.consolidateAfter", nillableDurationPattern, "is not a duration", nillableDurationHelp},
		{"spec.template.spec.expireAfter", nillableDurationPattern, "is not a duration", nillableDurationHelp},
		{"spec.template.spec.terminationGracePeriod", durationPattern, "is not a duration", durationHelp},
		{"spec.disruption.budgets[*].duration", budgetDurationPattern, "is not a budget duration", budgetDurationHelp},
		{"spec.disruption.budgets[*].nodes", budgetNodesPattern, "is not a node count or a percentage", `use e.g. "10" or "10%"; percentages go up to 100%`},
	}
	nodePoolV1Beta1Rules = []rawRule{
		{"spec.disruption.consolidateAfter", nillableDurationPattern, "is not a duration", nillableDurationHelp},
		{"spec.disruption.expireAfter", nillableDurationPattern, "is not a duration", nillableDurationHelp},
		{"spec.disruption.budgets[*].duration", budgetDurationPattern, "is not a budget duration", budgetDurationHelp},
		{"spec.disruption.budgets[*].nodes", budgetNodesPattern, "is not a node count or a percentage", `use e.g. "10" or "10%"; percentages go up to 100%`},
	}
	nodeClaimV1Rules = []rawRule{
		{"spec.expireAfter", nillableDurationPattern, "is not a duration", nillableDurationHelp},
		{"spec.terminationGracePeriod", durationPattern, "is not a duration", durationHelp},
	}
	ec2NodeClassRules = []rawRule{
		{"spec.role", regexp.MustCompile(`.`), "is not allowed", "role must not be empty; leave it out to use instanceProfile"},
		{"spec.blockDeviceMappings[*].ebs.volumeSize", volumeSizePattern, "is not allowed", `use Gi, G, Ti or T, from 1Gi up to 64T (e.g. "20Gi")`},
	}
)

// ValidateRaw checks the rules about how fields of a karpenter.sh or
// karpenter.k8s.aws object are written, on its generic JSON tree (maps,
// slices, strings, numbers as decoded from JSON). apiVersion picks the
// rules; unknown kinds and versions have none. Validate checks the rest.
func ValidateRaw(apiVersion, kind string, tree map[string]any) FieldErrors {
	var rules []rawRule
	switch apiVersion + " " + kind {
	case GroupV1 + " " + KindNodePool:
		rules = nodePoolV1Rules
	case GroupV1B1 + " " + KindNodePool:
		rules = nodePoolV1Beta1Rules
	case GroupV1 + " " + KindNodeClaim:
		rules = nodeClaimV1Rules
	case AWSGroupV1 + " " + KindEC2NodeClass, AWSGroupV1B + " " + KindEC2NodeClass:
		rules = ec2NodeClassRules
	}
	var out FieldErrors
	for _, r := range rules {
		walkRaw(tree, strings.Split(r.path, "."), "", func(path string, v any) {
			s, ok := v.(string)
			if !ok {
				s = fmt.Sprint(v)
			}
			if v != nil && !r.pattern.MatchString(s) {
				out = append(out, FieldError{Path: path, Message: fmt.Sprintf("%q %s (%s)", s, r.problem, r.help)})
			}
		})
	}
	return out
}

// walkRaw calls fn for every value found at the dotted path below node.
func walkRaw(node any, segments []string, path string, fn func(path string, v any)) {
	if len(segments) == 0 {
		fn(path, node)
		return
	}
	name, each := strings.CutSuffix(segments[0], "[*]")
	m, ok := node.(map[string]any)
	if !ok {
		return
	}
	v, ok := m[name]
	if !ok {
		return
	}
	p := child(path, name)
	if !each {
		walkRaw(v, segments[1:], p, fn)
		return
	}
	list, _ := v.([]any)
	for i, item := range list {
		walkRaw(item, segments[1:], p+"["+strconv.Itoa(i)+"]", fn)
	}
}
