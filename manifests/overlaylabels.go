package manifests

import "github.com/karpsim/karpsim/apis"

// checkOverlayLabels checks each NodeOverlay's requirement keys against the
// label rules of the clouds of the set's NodePools (apis.OverlayLabelRules):
// which keys an overlay may use depends on the provider running, and an
// overlay applies to NodePools. A part (DecodePart) without NodePools
// leaves the check to its caller, who knows the set it joins
// (CheckOverlayLabels).
func (l *loader) checkOverlayLabels() {
	s := l.set
	if len(s.NodeOverlays) == 0 || l.part && len(s.NodePools) == 0 {
		return
	}
	rules := apis.OverlayLabelRules(s.NodePools)
	for _, o := range s.NodeOverlays {
		if err := o.ValidateLabels(rules); err != nil {
			fieldErrs, _ := err.(apis.FieldErrors)
			l.report(s.sources[o], label(apis.KindNodeOverlay, o), ErrInvalid, fieldErrs, nil)
		}
	}
}

// CheckOverlayLabels checks the set's NodeOverlays against the label rules
// of its NodePools' clouds, as Load and Decode do: for a set that parts
// read with DecodePart changed after it was read. Nothing is modified.
func CheckOverlayLabels(s *Set) error {
	l := newLoader()
	l.set = s
	l.checkOverlayLabels()
	return l.errs.Err()
}
