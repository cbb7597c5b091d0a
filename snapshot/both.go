package snapshot

import (
	"errors"
	"slices"
	"time"

	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
)

// FromSetForDisruption builds both views of a Set from one run of FromSet's
// stages instead of two: FromSet's Snapshot and ForDisruption's view at
// now, equal to what each of them returns (TestFromSetForDisruptionIsBoth).
// It returns their errors, and never modifies the Set.
//
// The two views share what neither changes: the pods, the nodes' labels,
// taints and resource lists, DaemonSet pods, PDBs and catalogs; each has
// its own nodes (the disruption view adds deleting nodes and terminating
// pods to its own) and its own slices. Treat both as read only: changing
// a pod of one changes the other's too.
func FromSetForDisruption(set *manifests.Set, opts Options, now time.Time) (*Snapshot, *Disruption, error) {
	if set == nil {
		return nil, nil, errors.New("snapshot: no manifests (nil Set)")
	}
	b, err := runStages(setObjects(set), opts)
	if err != nil {
		return nil, nil, err
	}
	snap := b.finish()
	// The disruption view starts from the finished snapshot, as
	// forDisruption's does, but on copies of its nodes and of its list of
	// pending pods: disruptionNodes adds pods to the nodes, and DRA gives
	// each view's nodes their devices and changes its lists of pods.
	view := &Snapshot{
		Nodes: ownNodes(snap.Nodes), Pending: slices.Clone(snap.Pending),
		DaemonSets: snap.DaemonSets, PDBs: snap.PDBs, DefaultSpread: snap.DefaultSpread,
	}
	warnings := slices.Clone(snap.Warnings)

	// FromSet's last steps.
	snap.Buffers = SetBufferPods(set, time.Time{})
	if opts.DRA {
		snap.DRA = true
		if err := manifests.JoinProblems(snap.applyDRA(set, opts.Origin)...); err != nil {
			return nil, nil, err
		}
	}

	// forDisruption's, then ForDisruption's.
	d, err := b.disruption(view, warnings, now)
	if err != nil {
		return nil, nil, err
	}
	if err := d.finishFromSet(set, opts, now); err != nil {
		return nil, nil, err
	}
	return snap, d, nil
}

// ownNodes copies the nodes, each with its own list of pods; the rest of
// each node is shared.
func ownNodes(nodes []*scheduling.Node) []*scheduling.Node {
	out := make([]*scheduling.Node, len(nodes))
	for i, n := range nodes {
		c := *n
		c.Pods = slices.Clone(n.Pods)
		out[i] = &c
	}
	return out
}
