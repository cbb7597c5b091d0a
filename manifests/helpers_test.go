package manifests

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// sortedByKind orders error lines by the kind of problem they report, then
// keeps input order: duplicates, then missing references, then the rest.
func sortedByKind(lines []string) []string {
	rank := func(s string) int {
		switch {
		case strings.Contains(s, "names must be unique"):
			return 0
		case strings.Contains(s, "not found"):
			return 1
		default:
			return 2
		}
	}
	out := slices.Clone(lines)
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}
