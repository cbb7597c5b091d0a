package manifests

import (
	"reflect"
	"slices"
	"strings"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/internal/fields"
)

// unknownField is a field an object gave that its type does not have: a
// warning while the object loads, and the likely cause of an error about
// the field it misspells.
type unknownField struct {
	src    Source
	object string
	// parent and name split the field's path: its steps up to the field,
	// and its own name.
	parent []string
	name   string
	path   string
	// root is the Go type the object was decoded into, or nil.
	root reflect.Type
	// near is the known field beside it that name most likely misspells,
	// or "", found once an error about the object needs it.
	near string
}

// noteUnknown records the unknown fields of an object decoded as a root,
// by their paths, with the known field each most likely misspells.
func (l *loader) noteUnknown(src Source, object string, root reflect.Type, paths []string) {
	for _, p := range paths {
		steps := fields.Steps(p)
		if len(steps) == 0 {
			continue
		}
		parent, name := steps[:len(steps)-1], steps[len(steps)-1]
		l.unknown = append(l.unknown, unknownField{src: src, object: object, parent: parent, name: name, path: p, root: root})
	}
}

// explainUnknown adds to each error about an object the unknown fields of
// that object that explain it: an unknown field that misspells the field
// in error (or one it lies in), or one the error about their parent names,
// or, beside a field reported required, any unknown field. Without it a misspelt requirements reads as
// "requirements: required", and the warning that names the misspelling
// is not printed because the load failed.
func (l *loader) explainUnknown() {
	if len(l.unknown) == 0 {
		return
	}
	type objectKey struct {
		src    Source
		object string
	}
	byObject := map[objectKey][]*unknownField{}
	for i := range l.unknown {
		u := &l.unknown[i]
		k := objectKey{u.src, u.object}
		byObject[k] = append(byObject[k], u)
	}
	named := map[*unknownField]bool{}
	for _, err := range l.errs.shown {
		e, ok := err.(*Error)
		if !ok || e.Object == "" || e.Path == "" {
			continue
		}
		steps := fields.Steps(e.Path)
		for _, u := range byObject[objectKey{e.Source, e.Object}] {
			if !named[u] {
				named[u] = true
				if u.root != nil {
					u.near = fields.Nearest(u.name, fields.Names(fields.At(u.root, u.parent)))
				}
			}
			if !explains(*u, steps, e.Message) {
				continue
			}
			name := u.path
			if len(steps) <= len(u.parent)+1 {
				name = u.name
			}
			e.Message += "; unknown field " + name
			if u.near != "" {
				e.Message += " (did you mean " + u.near + "?)"
			}
		}
	}
}

// explains reports whether the unknown field u is a likely cause of a
// problem at the field path steps with the given message.
func explains(u unknownField, steps []string, message string) bool {
	if len(steps) < len(u.parent) || !slices.Equal(steps[:len(u.parent)], u.parent) {
		return false
	}
	if len(steps) == len(u.parent) {
		return u.near != "" && strings.Contains(message, u.near)
	}
	next := steps[len(u.parent)]
	return next == u.near || (len(steps) == len(u.parent)+1 && strings.HasPrefix(message, "required"))
}

// karpenterType is the Go type an object of a Karpenter kind (or
// kube-scheduler's configuration) is decoded into, as decodeKarpenter
// does; nil for another kind.
func karpenterType(kind, apiVersion string) reflect.Type {
	switch kind {
	case apis.KindNodePool:
		if apiVersion == apis.GroupV1 {
			return reflect.TypeFor[apis.NodePool]()
		}
		return reflect.TypeFor[apis.NodePoolV1Beta1]()
	case apis.KindNodeClaim:
		if apiVersion == apis.GroupV1 {
			return reflect.TypeFor[apis.NodeClaim]()
		}
		return reflect.TypeFor[apis.NodeClaimV1Beta1]()
	case apis.KindEC2NodeClass:
		if apiVersion == apis.AWSGroupV1 {
			return reflect.TypeFor[apis.EC2NodeClass]()
		}
		return reflect.TypeFor[apis.EC2NodeClassV1Beta1]()
	case apis.KindAKSNodeClass:
		return reflect.TypeFor[apis.AKSNodeClass]()
	case apis.KindNodeOverlay:
		return reflect.TypeFor[apis.NodeOverlay]()
	case apis.KindKubeSchedulerConfiguration:
		return reflect.TypeFor[apis.KubeSchedulerConfiguration]()
	}
	return nil
}
