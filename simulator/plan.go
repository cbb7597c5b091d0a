package simulator

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/provider"
)

// step is a scenario step checked and converted once, before the run
// starts: manifests decoded and validated, Deployment references resolved
// to namespace/name, defaults filled in. The engine runs these and never
// reads YAML. Exactly one kind is set.
type step struct {
	at         time.Duration
	scale      *scaleStep
	interrupt  *interruptStep
	nodePool   *apis.NodePool
	nodeClass  provider.NodeClass
	releaseAMI *releaseAMIStep
	// kubernetesVersion changes a node class's Kubernetes version.
	kubernetesVersion *kubernetesVersionStep
	traffic           *trafficStep
	arrivals          *arrivalsStep
	buffer            *bufferStep
	nodeCondition     *nodeConditionStep
}

// nodeConditionStep is a NodeConditionStep: node, or count (at least 1)
// of nodePool's nodes.
type nodeConditionStep struct {
	node, nodePool string
	count          int
	condition      corev1.NodeCondition
}

// bufferStep is a BufferStep: buffer to add or replace, or key
// ("namespace/name") of one to resize (replicas) or delete.
type bufferStep struct {
	buffer   *apis.CapacityBuffer
	key      string
	replicas *int32
	delete   bool
}

// scaleStep sets the replicas of the Deployment named namespace/name.
type scaleStep struct {
	deployment string
	replicas   int32
}

// interruptStep is an InterruptStep; with perHour set, count is at least 1.
type interruptStep struct {
	instanceType string
	count        int
	perHour      float64
	until        time.Duration
}

// releaseAMIStep makes nodeClass (never empty) resolve AMI id alone.
type releaseAMIStep struct {
	nodeClass string
	id        string
}

// kubernetesVersionStep makes nodeClass (never empty) launch Kubernetes
// version.
type kubernetesVersionStep struct {
	nodeClass string
	version   string
}

// trafficStep is a TrafficStep with its defaults filled in.
type trafficStep struct {
	deployment    string // namespace/name
	every, period time.Duration
	peakAt        time.Duration
	replicas      []int32
	min, max      int32
}

// arrivalsStep is an ArrivalsStep; until zero means the end of the run.
type arrivalsStep struct {
	deployment   string // namespace/name
	perHour      float64
	meanLifetime time.Duration
	until        time.Duration
}

// compile checks the scenario and converts its steps, in order, to the
// form the run executes. p places errors in the scenario's file, when
// there is one. Every problem is reported, each wrapping
// ErrInvalidScenario.
func (sc *Scenario) compile(p *placer) ([]step, error) {
	var errs []error
	if sc.Duration.Duration <= 0 {
		errs = append(errs, fmt.Errorf("%s%w: duration must be positive", p.Prefix("duration"), ErrInvalidScenario))
	}
	switch every := sc.SampleEvery.Duration; {
	case every < 0:
		errs = append(errs, fmt.Errorf("%s%w: sampleEvery %v is negative", p.Prefix("sampleEvery"), ErrInvalidScenario, every))
	case every > 0 && every < time.Second:
		errs = append(errs, fmt.Errorf("%s%w: sampleEvery %v is under a second", p.Prefix("sampleEvery"), ErrInvalidScenario, every))
	case every > 0 && sc.Duration.Duration/every > maxSamples:
		errs = append(errs, fmt.Errorf("%s%w: sampleEvery %v takes more than %d samples over %v", p.Prefix("sampleEvery"), ErrInvalidScenario, every, maxSamples, sc.Duration.Duration))
	}
	steps := make([]step, len(sc.Steps))
	for i := range sc.Steps {
		st, err := compileStep(&sc.Steps[i])
		if err != nil {
			errs = append(errs, p.stepError(i, err))
		}
		steps[i] = st
	}
	if sc.Cloud.FailureRate < 0 || sc.Cloud.FailureRate > 1 {
		errs = append(errs, fmt.Errorf("%s%w: cloud.failureRate %v is not in [0, 1]", p.Prefix("cloud.failureRate"), ErrInvalidScenario, sc.Cloud.FailureRate))
	}
	for i, z := range sc.Cloud.ZonalShifts {
		if z == "" {
			errs = append(errs, fmt.Errorf("%s%w: cloud.zonalShifts[%d] is empty", p.Prefix(fmt.Sprintf("cloud.zonalShifts[%d]", i)), ErrInvalidScenario, i))
		}
	}
	if err := manifests.JoinProblems(errs...); err != nil {
		return nil, err
	}
	return steps, nil
}

// checkReplicas refuses a scale or traffic step that asks a Deployment for
// more replicas than the pods snapshot expands (snapshot.Options.MaxPods):
// the run would fail that step every time it fires, after minutes spent
// building the pods of the earlier ones.
func checkReplicas(steps []step, maxPods int) error {
	var errs []error
	for i, st := range steps {
		var most int32
		var deployment string
		switch {
		case st.scale != nil:
			most, deployment = st.scale.replicas, st.scale.deployment
		case st.traffic != nil:
			most, deployment = max(st.traffic.max, slices.Max(append([]int32{0}, st.traffic.replicas...))), st.traffic.deployment
		default:
			continue
		}
		if int(most) > maxPods {
			errs = append(errs, fmt.Errorf("%w: %s: %d replicas of Deployment %s is more than %d, the most pods karpsim expands (snapshot.Options.MaxPods raises it)",
				ErrInvalidScenario, stepIndex(i), most, deployment, maxPods))
		}
	}
	return manifests.JoinProblems(errs...)
}

// stepIndex names step i by its index alone.
func stepIndex(i int) string { return fmt.Sprintf("steps[%d]", i) }

// compileStep checks one step and converts it.
func compileStep(st *Step) (step, error) {
	n := 0
	for _, set := range []bool{st.Scale != nil, st.Interrupt != nil, st.NodePool != nil, st.NodeClass != nil, st.ReleaseAMI != nil,
		st.KubernetesVersion != nil, st.Traffic != nil, st.Arrivals != nil, st.Buffer != nil, st.NodeCondition != nil} {
		if set {
			n++
		}
	}
	at := st.At.Duration
	switch {
	case n != 1:
		return step{}, fmt.Errorf("exactly one of scale, interrupt, nodePool, nodeClass, releaseAMI, kubernetesVersion, traffic, arrivals, buffer, nodeCondition must be set (got %d)", n)
	case at < 0:
		return step{}, fmt.Errorf("at %v is negative", at)
	}
	out := step{at: at}
	var err error
	switch {
	case st.Scale != nil:
		if st.Scale.Deployment == "" || st.Scale.Replicas < 0 {
			return step{}, errors.New("scale needs a deployment and replicas ≥ 0")
		}
		out.scale = &scaleStep{deployment: deploymentKey(st.Scale.Deployment), replicas: st.Scale.Replicas}
	case st.Interrupt != nil:
		out.interrupt, err = st.Interrupt.compile(at)
	case st.NodePool != nil:
		out.nodePool, err = st.NodePool.compile()
	case st.NodeClass != nil:
		out.nodeClass, err = st.NodeClass.compile()
	case st.ReleaseAMI != nil:
		out.releaseAMI, err = st.ReleaseAMI.compile()
	case st.KubernetesVersion != nil:
		out.kubernetesVersion, err = st.KubernetesVersion.compile()
	case st.Traffic != nil:
		out.traffic, err = st.Traffic.compile()
	case st.Arrivals != nil:
		out.arrivals, err = st.Arrivals.compile(at)
	case st.Buffer != nil:
		out.buffer, err = st.Buffer.compile()
	case st.NodeCondition != nil:
		out.nodeCondition, err = st.NodeCondition.compile()
	}
	if err != nil {
		return step{}, err
	}
	return out, nil
}

func (st *InterruptStep) compile(at time.Duration) (*interruptStep, error) {
	switch {
	case st.Count < 0:
		return nil, fmt.Errorf("interrupt count %d is negative", st.Count)
	case st.PerHour < 0 || math.IsInf(st.PerHour, 0) || math.IsNaN(st.PerHour):
		return nil, fmt.Errorf("interrupt perHour must be a positive number (got %v)", st.PerHour)
	case st.PerHour > MaxPerHour:
		return nil, fmt.Errorf("interrupt perHour %v is over %v (one a second)", st.PerHour, MaxPerHour)
	case st.Until.Duration != 0 && st.PerHour == 0:
		return nil, errors.New("interrupt until needs perHour")
	case st.Until.Duration != 0 && st.Until.Duration <= at:
		return nil, fmt.Errorf("interrupt until %v is not after the step's at %v", st.Until.Duration, at)
	}
	out := &interruptStep{instanceType: st.InstanceType, count: st.Count, perHour: st.PerHour, until: st.Until.Duration}
	if out.perHour > 0 {
		out.count = max(out.count, 1)
	}
	return out, nil
}

// compile decodes and validates the NodePool. Its EC2NodeClass is resolved
// when the step runs: it may come from the run's manifests or from an
// earlier nodeClass step.
func (st *NodePoolStep) compile() (*apis.NodePool, error) {
	set, err := manifests.DecodePart("nodePool manifest", []byte(st.Manifest))
	if err != nil {
		return nil, err
	}
	if len(set.NodePools) != 1 {
		return nil, fmt.Errorf("the manifest holds %d NodePools, want 1", len(set.NodePools))
	}
	np := set.NodePools[0]
	if np.Spec.Template.Spec.NodeClassRef == nil {
		return nil, fmt.Errorf("NodePool %s has no nodeClassRef", np.Name)
	}
	return np, nil
}

// compile decodes and validates the node class: one EC2NodeClass or one
// AKSNodeClass.
func (st *NodeClassStep) compile() (provider.NodeClass, error) {
	set, err := manifests.Decode("nodeClass manifest", []byte(st.Manifest))
	if err != nil {
		return nil, err
	}
	switch n := len(set.EC2NodeClasses) + len(set.AKSNodeClasses); {
	case n != 1:
		return nil, fmt.Errorf("the manifest holds %d EC2NodeClasses and %d AKSNodeClasses, want 1 node class", len(set.EC2NodeClasses), len(set.AKSNodeClasses))
	case len(set.AKSNodeClasses) == 1:
		return set.AKSNodeClasses[0], nil
	}
	return set.EC2NodeClasses[0], nil
}

func (st *KubernetesVersionStep) compile() (*kubernetesVersionStep, error) {
	v := strings.TrimPrefix(st.Version, "v")
	if !kubernetesVersion.MatchString(v) {
		return nil, fmt.Errorf("kubernetesVersion version %q is not a Kubernetes version (major.minor.patch, as 1.33.2)", st.Version)
	}
	return &kubernetesVersionStep{nodeClass: cmp.Or(st.NodeClass, "default"), version: v}, nil
}

// kubernetesVersion is the form of a Kubernetes release version.
var kubernetesVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

func (st *NodeConditionStep) compile() (*nodeConditionStep, error) {
	switch {
	case (st.Node == "") == (st.NodePool == ""):
		return nil, errors.New("nodeCondition needs exactly one of node and nodePool")
	case st.Node != "" && st.Count != 0:
		return nil, fmt.Errorf("nodeCondition count %d goes with nodePool, not node", st.Count)
	case st.Count < 0:
		return nil, fmt.Errorf("nodeCondition count %d is negative", st.Count)
	case st.Type == "":
		return nil, errors.New("nodeCondition needs a type")
	}
	// YAML reads an unquoted True or False as a boolean, which reaches
	// here as "true" or "false": the case is not held against it.
	i := slices.IndexFunc([]corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown},
		func(s corev1.ConditionStatus) bool { return strings.EqualFold(string(s), st.Status) })
	if i < 0 {
		return nil, fmt.Errorf("nodeCondition status %q is not True, False or Unknown", st.Status)
	}
	status := []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown}[i]
	return &nodeConditionStep{node: st.Node, nodePool: st.NodePool, count: max(st.Count, 1),
		condition: corev1.NodeCondition{Type: corev1.NodeConditionType(st.Type), Status: status, Reason: st.Reason}}, nil
}

func (st *ReleaseAMIStep) compile() (*releaseAMIStep, error) {
	if st.ID == "" {
		return nil, errors.New("releaseAMI needs an id")
	}
	out := &releaseAMIStep{nodeClass: st.NodeClass, id: st.ID}
	if out.nodeClass == "" {
		out.nodeClass = "default"
	}
	return out, nil
}

func (t *TrafficStep) compile() (*trafficStep, error) {
	switch {
	case t.Deployment == "":
		return nil, errors.New("traffic needs a deployment")
	case t.Every.Duration < 0 || t.Period.Duration < 0 || t.PeakAt.Duration < 0:
		return nil, errors.New("traffic every, period and peakAt must not be negative")
	case t.Every.Duration != 0 && t.Every.Duration < time.Second:
		return nil, fmt.Errorf("traffic every %v is under a second", t.Every.Duration)
	case len(t.Replicas) > 0 && (t.Min != 0 || t.Max != 0):
		return nil, errors.New("traffic takes either replicas or min and max, not both")
	case len(t.Replicas) == 0 && (t.Min < 0 || t.Max <= 0 || t.Min > t.Max):
		return nil, fmt.Errorf("traffic needs replicas, or 0 ≤ min ≤ max with max > 0 (got min %d, max %d)", t.Min, t.Max)
	}
	for i, r := range t.Replicas {
		if r < 0 {
			return nil, fmt.Errorf("traffic replicas[%d] is %d, negative", i, r)
		}
	}
	out := &trafficStep{deployment: deploymentKey(t.Deployment), every: t.Every.Duration, period: t.Period.Duration,
		peakAt: t.PeakAt.Duration, replicas: slices.Clone(t.Replicas), min: t.Min, max: t.Max}
	if out.every == 0 {
		out.every = time.Hour
	}
	if out.period == 0 {
		out.period = 24 * time.Hour
	}
	if out.peakAt == 0 {
		out.peakAt = out.period / 2
	}
	return out, nil
}

// replicasAt is the curve's value at its tick'th firing.
func (t *trafficStep) replicasAt(tick int) int32 {
	if len(t.replicas) > 0 {
		return t.replicas[tick%len(t.replicas)]
	}
	since := time.Duration(tick)*t.every - t.peakAt
	phase := 2 * math.Pi * float64(since%t.period) / float64(t.period)
	return t.min + int32(math.Round(float64(t.max-t.min)*(1+math.Cos(phase))/2))
}

func (a *ArrivalsStep) compile(at time.Duration) (*arrivalsStep, error) {
	switch {
	case a.Deployment == "":
		return nil, errors.New("arrivals needs a deployment")
	case !(a.PerHour > 0) || math.IsInf(a.PerHour, 0):
		return nil, fmt.Errorf("arrivals perHour must be a positive number (got %v)", a.PerHour)
	case a.MeanLifetime.Duration <= 0:
		return nil, errors.New("arrivals meanLifetime must be positive")
	case a.Until.Duration != 0 && a.Until.Duration <= at:
		return nil, fmt.Errorf("arrivals until %v is not after the step's at %v", a.Until.Duration, at)
	case a.PerHour > MaxPerHour:
		return nil, fmt.Errorf("arrivals perHour %v is over %v (one a second)", a.PerHour, MaxPerHour)
	}
	return &arrivalsStep{deployment: deploymentKey(a.Deployment), perHour: a.PerHour,
		meanLifetime: a.MeanLifetime.Duration, until: a.Until.Duration}, nil
}

// compile decodes and validates the buffer of a manifest, or checks the
// change asked of a named one.
func (st *BufferStep) compile() (*bufferStep, error) {
	switch {
	case st.Manifest != "" && (st.Name != "" || st.Replicas != nil || st.Delete):
		return nil, errors.New("buffer: a manifest, or a name with replicas or delete, not both")
	case st.Manifest != "":
		set, err := manifests.DecodePart("buffer manifest", []byte(st.Manifest))
		if err != nil {
			return nil, err
		}
		if len(set.CapacityBuffers) != 1 {
			return nil, fmt.Errorf("the manifest holds %d CapacityBuffers, want 1", len(set.CapacityBuffers))
		}
		return &bufferStep{buffer: set.CapacityBuffers[0]}, nil
	case st.Name == "":
		return nil, errors.New("buffer needs a manifest, or a name with replicas or delete")
	case (st.Replicas != nil) == st.Delete:
		return nil, fmt.Errorf("buffer %s: set one of replicas and delete", st.Name)
	case st.Replicas != nil && *st.Replicas < 0:
		return nil, fmt.Errorf("buffer %s: replicas %d is negative", st.Name, *st.Replicas)
	}
	return &bufferStep{key: deploymentKey(st.Name), replicas: st.Replicas, delete: st.Delete}, nil
}
