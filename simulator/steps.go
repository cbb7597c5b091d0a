package simulator

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/snapshot"
)

// step runs one scenario step; what it cannot do is recorded as a
// step-failed decision.
func (s *sim) step(i int) {
	st := s.steps[i]
	var err error
	switch {
	case st.scale != nil:
		err = s.scale(st.scale)
	case st.interrupt != nil && st.interrupt.perHour > 0:
		s.startInterruptions(i)
	case st.interrupt != nil:
		err = s.interrupt(st.interrupt, s.rng)
	case st.nodePool != nil:
		err = s.replaceNodePool(st.nodePool)
	case st.nodeClass != nil:
		err = s.replaceNodeClass(st.nodeClass)
	case st.releaseAMI != nil:
		err = s.releaseAMI(st.releaseAMI)
	case st.kubernetesVersion != nil:
		err = s.setKubernetesVersion(st.kubernetesVersion)
	case st.traffic != nil:
		s.traffic(i, 0)
	case st.arrivals != nil:
		err = s.startArrivals(i)
	case st.buffer != nil:
		err = s.changeBuffer(st.buffer)
	case st.nodeCondition != nil:
		err = s.setNodeCondition(st.nodeCondition)
	}
	if err != nil {
		s.decide(Decision{Kind: KindStepFailed, Reason: fmt.Sprintf("steps[%d]: %v", i, err)})
	}
}

// deploymentKey is "namespace/name", namespace default when left out.
func deploymentKey(ref string) string {
	if strings.Contains(ref, "/") {
		return ref
	}
	return "default/" + ref
}

// objectKey is "namespace/name", namespace default when empty.
func objectKey(namespace, name string) string {
	if namespace == "" {
		namespace = "default"
	}
	return namespace + "/" + name
}

// expand returns the pods a Deployment with the given replicas has, named
// and built as package snapshot expands workloads.
func (s *sim) expand(d *appsv1.Deployment, replicas int32) ([]*simPod, error) {
	d = d.DeepCopy()
	d.Spec.Replicas = &replicas
	empty := func(*apis.EC2NodeClass) (instancetypes.Catalog, error) { return instancetypes.Catalog{}, nil }
	snap, err := snapshot.FromSet(&manifests.Set{Deployments: []*appsv1.Deployment{d}}, snapshot.Options{Catalog: empty, MaxPods: s.cfg.Snapshot.MaxPods})
	if err != nil {
		return nil, err
	}
	key := objectKey(d.Namespace, d.Name)
	out := make([]*simPod, 0, len(snap.Pending))
	for _, p := range snap.Pending {
		if s.dra != nil {
			if p, err = s.dra.Pod(p); err != nil {
				return nil, err
			}
		}
		p.CreationTimestamp = metav1.NewTime(s.now)
		out = append(out, &simPod{key: p.Namespace + "/" + p.Name, pod: p, owner: key})
	}
	return out, nil
}

// scale sets a Deployment's replicas: missing pods are created pending,
// surplus ones (the highest-numbered) are deleted wherever they are.
func (s *sim) scale(st *scaleStep) error {
	key := st.deployment
	d := s.deployments[key]
	if d == nil {
		return fmt.Errorf("no Deployment %s in the manifests", key)
	}
	want, err := s.expand(d, st.replicas)
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	created := 0
	for _, p := range want {
		keep[p.key] = true
		if s.pods[p.key] == nil {
			s.pods[p.key] = p
			s.makePending(p)
			created++
		}
	}
	deleted := 0
	for _, p := range sortedPods(s.pods) {
		if p.owner == key && !keep[p.key] {
			s.deletePod(p)
			deleted++
		}
	}
	s.decide(Decision{Kind: KindScale, Pods: int(st.replicas),
		Reason: fmt.Sprintf("Deployment %s scaled to %d: %d pods created, %d deleted", key, st.replicas, created, deleted)})
	return nil
}

// deletePod removes a pod from the cluster. A pending pod's wait is not
// counted: it never got a node.
func (s *sim) deletePod(p *simPod) {
	if s.check != nil {
		s.check.deleted(p.key)
	}
	delete(s.pods, p.key)
	delete(s.pending, p.key)
	if n := s.nodes[p.node]; n != nil {
		delete(n.pods, p.key)
		s.lifePod(n.Name(), p, -1)
		n.LastPodEventAt = s.now
		// The kube-scheduler retries unschedulable pods when a pod
		// leaves a node: the room may fit one.
		s.bindDirty = s.bindDirty || len(s.pending) > 0
	}
	s.generation++
}

// interrupt sends spot interruption notices to running spot nodes chosen
// at random (seeded) and hands each to the controller, which handles it as
// Karpenter's interruption controller does.
func (s *sim) interrupt(st *interruptStep, rng *rand.Rand) error {
	in, ok := s.launcher.(Interrupter)
	if !ok {
		return fmt.Errorf("the launcher (%T) cannot send interruptions", s.launcher)
	}
	var spot []*simNode
	for _, n := range s.sortedNodes() {
		if n.Instance.CapacityType == apis.CapacityTypeSpot && !n.Deleting &&
			(st.instanceType == "" || n.Instance.InstanceType == st.instanceType) {
			spot = append(spot, n)
		}
	}
	if len(spot) == 0 && st.instanceType != "" {
		return fmt.Errorf("no running spot node of type %s to interrupt", st.instanceType)
	}
	if len(spot) == 0 {
		return fmt.Errorf("no running spot node to interrupt")
	}
	rng.Shuffle(len(spot), func(i, j int) { spot[i], spot[j] = spot[j], spot[i] })
	if st.count > 0 && st.count < len(spot) {
		spot = spot[:st.count]
	}
	slices.SortFunc(spot, func(a, b *simNode) int { return strings.Compare(a.Name(), b.Name()) })
	for _, n := range spot {
		notice, err := in.Interrupt(n.Instance.ID)
		if err != nil {
			s.decide(Decision{Kind: KindStepFailed, Nodes: []string{n.Name()}, Reason: err.Error()})
			continue
		}
		s.auto.interrupted(s.ctx, n, notice, s.now)
	}
	return nil
}

// replaceNodePool swaps in a step's NodePool, whose EC2NodeClass must be
// one the run knows now.
func (s *sim) replaceNodePool(np *apis.NodePool) error {
	if s.catalogs[np.Spec.Template.Spec.NodeClassRef.Name] == nil {
		return fmt.Errorf("NodePool %s: its EC2NodeClass is not one the run knows", np.Name)
	}
	s.pools[np.Name] = np.DeepCopy()
	s.auto.nodeClassChanged()
	s.provisionDirty = len(s.pending) > 0
	s.generation++
	s.decide(Decision{Kind: KindNodePoolChanged, Reason: "NodePool " + np.Name + " replaced"})
	return nil
}

// replaceNodeClass swaps in a step's node class and models its instance
// types anew.
func (s *sim) replaceNodeClass(nc provider.NodeClass) error {
	p := s.cfg.Snapshot.Providers().Owner(nc)
	kind := p.Kind()
	catalog, err := p.Catalog(nc, s.overlays)
	if err != nil {
		return fmt.Errorf("%s %s: cannot model its instance types: %w", kind, nc.GetName(), err)
	}
	// The run changes its copy (image and version steps), never the
	// step's. The copy carries the class's stamped hash as the provider's
	// hash controller leaves it (kept unless the hashed spec changed), and
	// the images it resolved unless the manifest gives its own.
	s.classes[nc.GetName()] = p.Replaced(s.NodeClass(nc.GetName()), nc)
	if s.dra != nil {
		catalog = s.dra.Catalog(catalog)
	}
	s.catalogs[nc.GetName()] = catalog
	s.auto.nodeClassChanged()
	s.provisionDirty = len(s.pending) > 0
	s.generation++
	s.decide(Decision{Kind: KindNodeClassChanged, Reason: fmt.Sprintf("%s %s replaced (%d instance types)", kind, nc.GetName(), len(catalog))})
	return nil
}

// classNamed returns the run's node class of that name and its provider.
func (s *sim) classNamed(name string) (provider.Provider, provider.NodeClass, error) {
	nc := s.NodeClass(name)
	p := s.cfg.Snapshot.Providers().Owner(nc)
	if p == nil {
		return nil, nil, fmt.Errorf("no node class %s", name)
	}
	return p, nc, nil
}

// releaseAMI makes a node class resolve a new image: an AMI on AWS, a node
// image on Azure.
func (s *sim) releaseAMI(st *releaseAMIStep) error {
	p, nc, err := s.classNamed(st.nodeClass)
	if err != nil {
		return err
	}
	if nc, err = p.ReleaseImage(nc, st.id); err != nil {
		return err
	}
	s.classes[st.nodeClass] = nc
	s.auto.nodeClassChanged()
	s.generation++
	what := "AMI"
	if p.Cloud() != provider.CloudAWS {
		what = "node image"
	}
	s.decide(Decision{Kind: KindAMIReleased, Reason: fmt.Sprintf("%s %s now resolves %s %s", p.Kind(), st.nodeClass, what, st.id)})
	return nil
}

// setKubernetesVersion makes a node class's new nodes run another
// Kubernetes version.
func (s *sim) setKubernetesVersion(st *kubernetesVersionStep) error {
	p, nc, err := s.classNamed(st.nodeClass)
	if err != nil {
		return err
	}
	if nc, err = p.SetKubernetesVersion(nc, st.version); err != nil {
		return err
	}
	s.classes[st.nodeClass] = nc
	s.auto.nodeClassChanged()
	s.generation++
	s.decide(Decision{Kind: KindKubernetesVersion, Reason: fmt.Sprintf("%s %s now launches Kubernetes %s", p.Kind(), st.nodeClass, st.version)})
	return nil
}
