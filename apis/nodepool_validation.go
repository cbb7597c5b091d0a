package apis

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Defaults the karpenter.sh/v1 CRDs apply to fields left out.
const (
	DefaultExpireAfter      = 720 * time.Hour
	DefaultConsolidateAfter = time.Duration(0)
	DefaultBudgetNodes      = "10%"
)

const (
	maxBudgets = 50
	maxReasons = 50
	minWeight  = 1
	maxWeight  = 100
)

var (
	// budgetNodesPattern is the CRD's pattern for budgets[].nodes: a count
	// or a percentage from 0% to 100%.
	budgetNodesPattern = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)
	// budgetSchedulePattern is the CRD's pattern for budgets[].schedule: a
	// cron macro, or five space-separated fields.
	budgetSchedulePattern = regexp.MustCompile(`^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$`)

	disruptionReasons     = []DisruptionReason{DisruptionReasonEmpty, DisruptionReasonDrifted, DisruptionReasonUnderutilized, DisruptionReasonUnhealthy}
	consolidationPolicies = []ConsolidationPolicy{ConsolidationPolicyWhenEmpty, ConsolidationPolicyWhenEmptyOrUnderutilized, ConsolidationPolicyBalanced}
)

// SetDefaults fills in the fields the NodePool CRD defaults: consolidation
// policy WhenEmptyOrUnderutilized, consolidateAfter 0s, one budget of 10%
// (only when budgets is left out, not when it is an empty list), budget
// nodes 10%, and expireAfter 720h. Weight stays nil, which ranks as 0.
//
// The CRD defaults consolidateAfter only when the whole disruption block is
// left out, and refuses a disruption block without it; SetDefaults fills
// 0s in both cases (package manifests warns about the second).
func (in *NodePool) SetDefaults() {
	d := &in.Spec.Disruption
	if !d.ConsolidateAfter.IsSet() {
		d.ConsolidateAfter = NewNillableDuration(DefaultConsolidateAfter)
	}
	if d.ConsolidationPolicy == "" {
		d.ConsolidationPolicy = ConsolidationPolicyWhenEmptyOrUnderutilized
	}
	if d.Budgets == nil {
		d.Budgets = []Budget{{Nodes: DefaultBudgetNodes}}
	}
	for i := range d.Budgets {
		if d.Budgets[i].Nodes == "" {
			d.Budgets[i].Nodes = DefaultBudgetNodes
		}
	}
	if !in.Spec.Template.Spec.ExpireAfter.IsSet() {
		in.Spec.Template.Spec.ExpireAfter = NewNillableDuration(DefaultExpireAfter)
	}
}

// LabelRules are the label rules of the provider the NodePool's
// nodeClassRef names (LabelRulesFor its group), which its validation
// follows; the default cloud's without a nodeClassRef. (Its NodeClaims may
// leave undefined the well-known labels of its catalog's types, which the
// same provider gives: instancetypes.Catalog.WellKnownLabels.)
func (in *NodePool) LabelRules() *LabelRules {
	if ref := in.Spec.Template.Spec.NodeClassRef; ref != nil {
		return LabelRulesFor(ref.Group)
	}
	return AWSLabels
}

// Validate checks the NodePool against the rules of the karpenter.sh/v1
// CRD (OpenAPI schema and CEL) and of Karpenter's runtime validation, and,
// for a NodePool of AKSNodeClasses, the Azure provider's CRD's rules on
// label keys. It
// returns nil or a FieldErrors with every problem found. Call SetDefaults
// first, as the API server defaults before it validates.
func (in *NodePool) Validate() error {
	e := &errs{}
	validateName(e, in.Name)
	rules := in.LabelRules()
	validateTemplateLabels(e, "spec.template.metadata.labels", in.Spec.Template.ObjectMeta.Labels, rules)
	spec := "spec.template.spec"
	tmpl := in.Spec.Template.Spec
	validateTaints(e, spec, tmpl.Taints, tmpl.StartupTaints)
	if tmpl.Requirements == nil {
		e.add(child(spec, "requirements"), "required (an empty list is allowed)")
	}
	validateRequirements(e, child(spec, "requirements"), tmpl.Requirements, true, rules)
	validateNodeClassRef(e, child(spec, "nodeClassRef"), tmpl.NodeClassRef)
	in.validateAzureLabelKeys(e)
	validateSeconds(e, child(spec, "expireAfter"), tmpl.ExpireAfter.Duration, true)
	if tmpl.TerminationGracePeriod != nil {
		validateSeconds(e, child(spec, "terminationGracePeriod"), &tmpl.TerminationGracePeriod.Duration, false)
	}
	in.validateSizing(e)
	validateDisruption(e, "spec.disruption", in.Spec.Disruption)
	return e.list.asError()
}

// validateSizing checks weight, replicas and limits, which interact on
// static NodePools.
func (in *NodePool) validateSizing(e *errs) {
	if w := in.Spec.Weight; w != nil && (*w < minWeight || *w > maxWeight) {
		e.add("spec.weight", "%d is out of range (%d to %d; leave weight out to rank the NodePool lowest, as 0)", *w, minWeight, maxWeight)
	}
	r := in.Spec.Replicas
	if r == nil {
		return
	}
	if *r < 0 {
		e.add("spec.replicas", "%d is negative; a static NodePool needs 0 or more replicas", *r)
	}
	if in.Spec.Weight != nil {
		e.add("spec.weight", "not supported on a static NodePool (one with replicas)")
	}
	for _, name := range sortedKeys(in.Spec.Limits) {
		if name != "nodes" {
			e.add(key("spec.limits", name), "a static NodePool (one with replicas) may only limit nodes")
		}
	}
}

func validateDisruption(e *errs, path string, d Disruption) {
	if !slices.Contains(consolidationPolicies, d.ConsolidationPolicy) {
		e.add(child(path, "consolidationPolicy"), "%q is not a consolidation policy of karpenter.sh/v1 (use WhenEmpty, WhenEmptyOrUnderutilized or Balanced)", d.ConsolidationPolicy)
	}
	validateSeconds(e, child(path, "consolidateAfter"), d.ConsolidateAfter.Duration, true)
	budgets := child(path, "budgets")
	if len(d.Budgets) > maxBudgets {
		e.add(budgets, "%d budgets, at most %d are allowed", len(d.Budgets), maxBudgets)
	}
	for i, b := range d.Budgets {
		validateBudget(e, index(budgets, i), b)
	}
}

func validateBudget(e *errs, path string, b Budget) {
	if !budgetNodesPattern.MatchString(b.Nodes) {
		e.add(child(path, "nodes"), "%q is not a node count or a percentage (use e.g. \"10\" or \"10%%\"; percentages go up to 100%%)", b.Nodes)
	}
	if len(b.Reasons) > maxReasons {
		e.add(child(path, "reasons"), "%d reasons, at most %d are allowed", len(b.Reasons), maxReasons)
	}
	for i, r := range b.Reasons {
		if !slices.Contains(disruptionReasons, r) {
			e.add(index(child(path, "reasons"), i), "%q is not a disruption reason (use Empty, Drifted, Underutilized or Unhealthy)", r)
		}
	}
	switch {
	case b.Schedule != nil && b.Duration == nil:
		e.add(child(path, "duration"), "required when schedule is set: how long the budget stays active after each schedule hit, e.g. \"8h\"")
	case b.Schedule == nil && b.Duration != nil:
		e.add(child(path, "schedule"), "required when duration is set: a cron expression in UTC such as \"0 9 * * mon-fri\" or \"@daily\"")
	}
	if b.Schedule != nil {
		validateSchedule(e, child(path, "schedule"), *b.Schedule)
	}
	if b.Duration != nil {
		if d := b.Duration.Duration; d < 0 || d%time.Minute != 0 {
			e.add(child(path, "duration"), "%s is not allowed: use a whole number of hours and minutes such as \"8h\", \"30m\" or \"1h30m\"", d)
		}
	}
}

// validateSchedule checks a budget's cron schedule the way Karpenter reads
// it: the CRD pattern, then robfig/cron's standard parser in UTC.
func validateSchedule(e *errs, path, schedule string) {
	if !budgetSchedulePattern.MatchString(schedule) {
		e.add(path, "%q is not a cron schedule: use five fields (minute hour day-of-month month day-of-week) such as \"0 9 * * mon-fri\", or a macro such as \"@daily\"", schedule)
		return
	}
	if _, err := cron.ParseStandard("TZ=UTC " + schedule); err != nil {
		e.add(path, "%q is not a valid cron schedule: %s", schedule, strings.TrimPrefix(err.Error(), "failed to parse "))
	}
}
