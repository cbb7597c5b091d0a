package manifests

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/karpsim/karpsim/apis"
)

// crossCheck runs the checks that need every object: labels and
// annotations (run here, once, whichever path decoded the object), duplicate names,
// NodePool references to EC2NodeClasses, NodeOverlays' label keys under
// their NodePools' clouds, and the parts of the v1beta1
// conversion that move data between objects.
func (l *loader) crossCheck() {
	s := l.set
	checkKind(l, apis.KindNodePool, s.NodePools)
	checkKind(l, apis.KindNodeClaim, s.NodeClaims)
	checkKind(l, apis.KindEC2NodeClass, s.EC2NodeClasses)
	checkKind(l, apis.KindAKSNodeClass, s.AKSNodeClasses)
	checkKind(l, apis.KindNodeOverlay, s.NodeOverlays)
	checkKind(l, "Pod", s.Pods)
	checkKind(l, "Deployment", s.Deployments)
	checkKind(l, "ReplicaSet", s.ReplicaSets)
	checkKind(l, "StatefulSet", s.StatefulSets)
	checkKind(l, "Job", s.Jobs)
	checkKind(l, "DaemonSet", s.DaemonSets)
	checkKind(l, "PodDisruptionBudget", s.PodDisruptionBudgets)
	checkKind(l, "Node", s.Nodes)
	checkKind(l, "PersistentVolume", s.PersistentVolumes)
	checkKind(l, "PersistentVolumeClaim", s.PersistentVolumeClaims)
	checkKind(l, "StorageClass", s.StorageClasses)
	checkKind(l, "PodTemplate", s.PodTemplates)
	checkKind(l, "CSINode", s.CSINodes)
	checkKind(l, apis.KindBuffer, s.CapacityBuffers)
	checkKind(l, "DeviceClass", s.DeviceClasses)
	checkKind(l, "ResourceClaim", s.ResourceClaims)
	checkKind(l, "ResourceClaimTemplate", s.ResourceClaimTemplates)
	checkKind(l, "ResourceSlice", s.ResourceSlices)
	checkKind(l, "Service", s.Services)
	l.checkBuffers()
	l.checkNodeClassRefs()
	l.checkOverlayLabels()
	l.applyV1Beta1Kubelet()
	l.applyV1Beta1ExpireAfter()
}

type named interface {
	GetName() string
	GetNamespace() string
}

type object interface {
	named
	GetLabels() map[string]string
	GetAnnotations() map[string]string
}

// checkKind checks the metadata of every object of a kind and the fields
// karpsim reads of it (validateObject), then their names.
func checkKind[T object](l *loader, kind string, objs []T) {
	for _, o := range objs {
		var problems apis.FieldErrors
		if labels, annotations := o.GetLabels(), o.GetAnnotations(); len(labels) > 0 || len(annotations) > 0 {
			problems = apis.ValidateObjectMeta(labels, annotations)
		}
		problems = append(problems, validateObject(kind, o)...)
		if len(problems) > 0 {
			l.report(l.set.sources[o], label(kind, o), ErrInvalid, problems, nil)
		}
	}
	checkDuplicates(l, kind, objs)
}

// checkDuplicates reports every object whose kind, namespace and name were
// already used by an earlier object. Objects without a name are skipped.
func checkDuplicates[T named](l *loader, kind string, objs []T) {
	first := map[string]Source{}
	for _, o := range objs {
		if o.GetName() == "" {
			continue
		}
		id := o.GetNamespace() + "/" + o.GetName()
		src := l.set.sources[o]
		if prev, dup := first[id]; dup {
			l.fail(src, label(kind, o), "metadata.name", ErrDuplicate, fmt.Sprintf("another %s named %q is defined at %s; names must be unique", kind, o.GetName(), prev))
			continue
		}
		first[id] = src
	}
}

func label(kind string, o named) string {
	if o.GetNamespace() != "" {
		return kind + "/" + apis.DisplayName(o.GetNamespace()) + "/" + apis.DisplayName(o.GetName())
	}
	return kind + "/" + apis.DisplayName(o.GetName())
}

func (l *loader) nodeClass(name string) *apis.EC2NodeClass {
	for _, nc := range l.set.EC2NodeClasses {
		if nc.Name == name {
			return nc
		}
	}
	return nil
}

func (l *loader) aksNodeClass(name string) *apis.AKSNodeClass {
	for _, nc := range l.set.AKSNodeClasses {
		if nc.Name == name {
			return nc
		}
	}
	return nil
}

// checkNodeClassRefs reports NodePools whose nodeClassRef names a node
// class that was not given (unless the stream is a part), or a kind of node
// class karpsim does not simulate: EC2NodeClass (karpenter.k8s.aws) and
// AKSNodeClass (karpenter.azure.com) are. Missing group, kind or name were
// reported by validation. Node classes are known by name alone, so an
// EC2NodeClass and an AKSNodeClass may not share one.
func (l *loader) checkNodeClassRefs() {
	const path = "spec.template.spec.nodeClassRef"
	for _, nc := range l.set.AKSNodeClasses {
		if nc.Name != "" && l.nodeClass(nc.Name) != nil {
			l.fail(l.set.sources[nc], label(apis.KindAKSNodeClass, nc), "metadata.name", ErrDuplicate, fmt.Sprintf(
				"an EC2NodeClass is also named %q: karpsim knows node classes by name, so give the two different names", nc.Name))
		}
	}
	for _, np := range l.set.NodePools {
		ref := np.Spec.Template.Spec.NodeClassRef
		if ref == nil || ref.Name == "" || ref.Group == "" || ref.Kind == "" {
			continue
		}
		src := l.set.sources[np]
		var found bool
		switch {
		case ref.Group == apis.AWSGroup && ref.Kind == apis.KindEC2NodeClass:
			found = l.nodeClass(ref.Name) != nil
		case ref.Group == apis.AzureGroup && ref.Kind == apis.KindAKSNodeClass:
			found = l.aksNodeClass(ref.Name) != nil
		default:
			l.fail(src, label(apis.KindNodePool, np), path, ErrMissingReference, fmt.Sprintf(
				"group %s, kind %s is not a node class karpsim simulates (use group %s, kind %s, or group %s, kind %s)",
				ref.Group, ref.Kind, apis.AWSGroup, apis.KindEC2NodeClass, apis.AzureGroup, apis.KindAKSNodeClass))
			continue
		}
		if !found && !l.part {
			l.fail(src, label(apis.KindNodePool, np), path+".name", ErrMissingReference, fmt.Sprintf(
				"%s %q not found (%s)", ref.Kind, ref.Name, l.knownNodeClasses(ref.Kind)))
		}
	}
}

func (l *loader) knownNodeClasses(kind string) string {
	var names []string
	plural := "EC2NodeClasses"
	if kind == apis.KindAKSNodeClass {
		plural = "AKSNodeClasses"
		for _, nc := range l.set.AKSNodeClasses {
			names = append(names, nc.Name)
		}
	} else {
		for _, nc := range l.set.EC2NodeClasses {
			names = append(names, nc.Name)
		}
	}
	if len(names) == 0 {
		return "no " + kind + " was given"
	}
	return plural + " given: " + strings.Join(names, ", ")
}

// applyV1Beta1Kubelet moves kubelet settings that v1beta1 NodePools had
// (kept in an annotation by the conversion) to the EC2NodeClass they use,
// as the AWS provider did at v1, when that class has none of its own. In
// Karpenter each NodePool kept its own settings; karpsim has one per class,
// so the first NodePool's settings win and a warning names the others.
func (l *loader) applyV1Beta1Kubelet() {
	from := map[*apis.EC2NodeClass]string{}
	for _, np := range l.set.NodePools {
		annotation, ok := np.Annotations[apis.AnnotationKubeletCompatibility]
		ref := np.Spec.Template.Spec.NodeClassRef
		if !ok || ref == nil {
			continue
		}
		src, npLabel := l.set.sources[np], label(apis.KindNodePool, np)
		kubelet := &apis.KubeletConfiguration{}
		if err := json.Unmarshal([]byte(annotation), kubelet); err != nil {
			l.fail(src, npLabel, "metadata.annotations["+apis.AnnotationKubeletCompatibility+"]", ErrInvalid, fmt.Sprintf("not kubelet settings in JSON: %s", cleanDecodeError(err.Error())))
			continue
		}
		nc := l.nodeClass(ref.Name)
		if nc == nil {
			continue
		}
		ncLabel := label(apis.KindEC2NodeClass, nc)
		switch {
		case nc.Spec.Kubelet == nil:
			nc.Spec.Kubelet = kubelet
			from[nc] = npLabel
			l.warn(l.set.sources[nc], ncLabel, fmt.Sprintf("spec.kubelet: set to %s, the v1beta1 kubelet settings of %s (its %s annotation)", annotation, npLabel, apis.AnnotationKubeletCompatibility))
		case reflect.DeepEqual(nc.Spec.Kubelet, kubelet):
		case from[nc] != "":
			l.warn(src, npLabel, fmt.Sprintf("v1beta1 kubelet settings %s ignored: %s already has the different settings of %s, and karpsim keeps one set per EC2NodeClass", annotation, ncLabel, from[nc]))
		default:
			l.warn(src, npLabel, fmt.Sprintf("v1beta1 kubelet settings %s ignored: %s has its own spec.kubelet, which takes precedence", annotation, ncLabel))
		}
	}
}

// applyV1Beta1ExpireAfter gives NodeClaims converted from v1beta1 the
// expireAfter of their NodePool, as Karpenter's conversion did; without the
// NodePool they keep the default.
func (l *loader) applyV1Beta1ExpireAfter() {
	for _, nc := range l.v1beta1Claims {
		src, ncLabel := l.set.sources[nc], label(apis.KindNodeClaim, nc)
		poolName := nc.Labels[apis.LabelNodePool]
		var pool *apis.NodePool
		for _, np := range l.set.NodePools {
			if np.Name == poolName && poolName != "" {
				pool = np
				break
			}
		}
		if pool == nil {
			l.warn(src, ncLabel, fmt.Sprintf("converted to v1: spec.expireAfter: %s (the default; its NodePool %q was not given)", nc.Spec.ExpireAfter, poolName))
			continue
		}
		nc.Spec.ExpireAfter = pool.Spec.Template.Spec.ExpireAfter.DeepCopy()
		l.warn(src, ncLabel, fmt.Sprintf("converted to v1: spec.expireAfter: %s, from NodePool/%s", nc.Spec.ExpireAfter, poolName))
	}
}

// checkBuffers validates each CapacityBuffer and the object it refers to,
// which must be given, in the buffer's namespace: Karpenter resolves only
// same-namespace references (a part of a stream is exempt, as for
// EC2NodeClasses).
func (l *loader) checkBuffers() {
	s := l.set
	for _, b := range s.CapacityBuffers {
		src, lbl := s.sources[b], label(apis.KindBuffer, b)
		if err := b.Validate(); err != nil {
			fieldErrs, _ := err.(apis.FieldErrors)
			l.report(src, lbl, ErrInvalid, fieldErrs, nil)
			continue
		}
		if l.part {
			continue
		}
		ns := apis.NamespaceOf(b.Namespace)
		if r := b.Spec.PodTemplateRef; r != nil && !hasNamed(s.PodTemplates, ns, r.Name) {
			l.fail(src, lbl, "spec.podTemplateRef.name", ErrMissingReference, fmt.Sprintf("no PodTemplate %s/%s was given", ns, r.Name))
		}
		if r := b.Spec.ScalableRef; r != nil {
			found := false
			switch r.Kind {
			case "Deployment":
				found = hasNamed(s.Deployments, ns, r.Name)
			case "StatefulSet":
				found = hasNamed(s.StatefulSets, ns, r.Name)
			case "ReplicaSet":
				found = hasNamed(s.ReplicaSets, ns, r.Name)
			}
			if !found {
				l.fail(src, lbl, "spec.scalableRef.name", ErrMissingReference, fmt.Sprintf("no %s %s/%s was given", r.Kind, ns, r.Name))
			}
		}
	}
}

func hasNamed[T named](objs []T, namespace, name string) bool {
	for _, o := range objs {
		if o.GetName() == name && apis.NamespaceOf(o.GetNamespace()) == namespace {
			return true
		}
	}
	return false
}
