package kube

import (
	"fmt"

	"github.com/karpsim/karpsim/apis"
)

// checkOverlayLabels keeps the NodeOverlays whose requirement keys the
// label rules of the NodePools' clouds allow (apis.OverlayLabelRules),
// appending an error naming each other one, as decoded does for an object
// that does not validate.
func checkOverlayLabels(overlays []*apis.NodeOverlay, pools []*apis.NodePool, errs *[]error) []*apis.NodeOverlay {
	if len(overlays) == 0 {
		return overlays
	}
	rules := apis.OverlayLabelRules(pools)
	out := overlays[:0:0]
	for _, o := range overlays {
		if err := o.ValidateLabels(rules); err != nil {
			*errs = append(*errs, fmt.Errorf("%s/%s: %w", apis.KindNodeOverlay, o.Name, err))
			continue
		}
		out = append(out, o)
	}
	return out
}
