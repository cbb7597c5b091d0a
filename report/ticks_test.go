package report

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every value axis has a few ticks, each labelled once, reaching the top.
func TestValueTicksAreDistinctAndCoverTheTop(t *testing.T) {
	for _, top := range []float64{0, 1e-9, 0.00042, 0.0889, 0.6, 1, 5, 13, 15, 99, 2500, 1e7} {
		for _, whole := range []bool{false, true} {
			step, ticks := yTicks(top, whole)
			assert.LessOrEqual(t, len(ticks), 7, "top %v", top)
			assert.GreaterOrEqual(t, ticks[len(ticks)-1], top, "top %v", top)
			seen := map[string]bool{}
			for _, v := range ticks {
				label := strconv.FormatFloat(v, 'f', decimals(step), 64)
				assert.False(t, seen[label], "top %v: label %s twice", top, label)
				seen[label] = true
			}
		}
	}
}

// A time axis has at most a dozen intervals, from a minute to a leap year.
func TestTimeTicksStayFew(t *testing.T) {
	for _, end := range []float64{60, 3600, 86400, 7 * 86400, 30 * 86400, 366 * 86400} {
		ticks, step := timeTicks(end)
		assert.LessOrEqual(t, len(ticks), 13, "end %v", end)
		assert.GreaterOrEqual(t, len(ticks), 1, "end %v", end)
		seen := map[string]bool{}
		for _, tk := range ticks {
			l := timeLabel(tk, step)
			assert.False(t, seen[l], "end %v: %s twice", end, l)
			seen[l] = true
		}
	}
}
