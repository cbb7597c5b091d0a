package manifests

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProblemsPrintAtMostMaxProblems(t *testing.T) {
	var p Problems
	require.NoError(t, p.Err())
	for i := range 199_999 {
		p.Add(&Error{Source: Source{File: "l.yaml", Item: i + 1}, Message: fmt.Sprintf("problem %d", i+1), Kind: ErrMalformed})
	}
	p.Add(&Error{Source: Source{File: "l.yaml"}, Message: "too many", Kind: ErrTooLarge})
	assert.Equal(t, 200_000, p.Len())
	err := p.Err()
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, MaxProblems+1)
	assert.Equal(t, "l.yaml: problem 1", lines[0])
	assert.Equal(t, "... and 199,980 more problems", lines[MaxProblems])
	assert.ErrorIs(t, err, ErrMalformed)
	assert.ErrorIs(t, err, ErrTooLarge, "a kind past the printed problems still answers errors.Is")
	assert.NotErrorIs(t, err, ErrDuplicate)
	assert.LessOrEqual(t, len(p.hidden), len(sentinels), "one hidden problem a kind at most")
}

func TestProblemsUnderTheLimitJoinAsErrorsJoin(t *testing.T) {
	errs := []error{errors.New("a"), errors.New("b")}
	assert.Equal(t, errors.Join(errs...).Error(), JoinProblems(errs...).Error())
	assert.NoError(t, JoinProblems(nil, nil))
	one := errors.New("one")
	assert.Equal(t, "one", JoinProblems(nil, one).Error())
}

func TestProblemsAddAllKeepsOrderAndCount(t *testing.T) {
	var a, b Problems
	for i := range 15 {
		a.Add(fmt.Errorf("a%d", i))
		b.Add(fmt.Errorf("b%d", i))
	}
	b.Add(&Error{Source: Source{File: "f"}, Message: "dup", Kind: ErrDuplicate})
	a.AddAll(&b)
	assert.Equal(t, 31, a.Len())
	lines := strings.Split(a.Err().Error(), "\n")
	assert.Equal(t, "b4", lines[MaxProblems-1])
	assert.Equal(t, "... and 11 more problems", lines[MaxProblems])
	assert.ErrorIs(t, a.Err(), ErrDuplicate)
}

func TestProblemsInsertAtMovesTheLaterProblemsFirst(t *testing.T) {
	var p Problems
	for _, s := range []string{"a", "b", "c", "syntax"} {
		p.Add(errors.New(s))
	}
	p.insertAt(1, 3)
	assert.Equal(t, "a\nsyntax\nb\nc", p.Err().Error())
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 199979: "199,979", 1234567: "1,234,567"} {
		assert.Equal(t, want, thousands(n))
	}
}

// A streamed YAML List of 199,999 items without a kind is one mistake: its
// error names the first MaxProblems items and counts the rest, and the
// items are not held a loader each until the List's header is read.
func TestListOfEmptyItems(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 199,999 items")
	}
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for range 199_999 {
		b.WriteString("- {}\n")
	}
	_, err := LoadLimited(Limits{}, Input{Stream: Stream{Name: "l.yaml"}, Reader: strings.NewReader(b.String())})
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	require.Len(t, lines, MaxProblems+1)
	assert.Equal(t, "l.yaml: document 1 (line 1) item 1: no kind: every object needs apiVersion and kind", lines[0])
	assert.Equal(t, "... and 199,979 more problems", lines[MaxProblems])
	assert.ErrorIs(t, err, ErrMalformed)
}
