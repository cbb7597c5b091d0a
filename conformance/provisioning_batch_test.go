package conformance

import (
	"time"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/controller"
)

// launches are the launch decisions of a timeline.
func launches(timeline []controller.Decision) []controller.Decision {
	var out []controller.Decision
	for _, d := range timeline {
		if d.Kind == "launch" {
			out = append(out, d)
		}
	}
	return out
}

var _ = register("provisioning",
	conformanceCase{Name: "batch-lone-pod", Run: func(t *T) {
		timeline := runScenario(t, "batch-lone-pod")
		l := launches(timeline)
		require.Len(t, l, 1, "%+v", timeline)
		require.Equal(t, 11*time.Second, l[0].At.Duration, "%+v", timeline)
	}},
	conformanceCase{Name: "batch-extended-by-new-pod", Run: func(t *T) {
		timeline := runScenario(t, "batch-extended-by-new-pod")
		l := launches(timeline)
		require.Len(t, l, 1, "both pods go to one node launched once: %+v", timeline)
		require.Equal(t, 11500*time.Millisecond, l[0].At.Duration, "%+v", timeline)
	}},
)
