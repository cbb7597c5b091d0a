package manifests

import (
	"errors"
	"fmt"
	"strings"
)

// MaxProblems is the most problems an error built by Problems spells out;
// the rest are counted ("... and 199,979 more problems"). A List of
// 200,000 empty items is one mistake, and its error should fit on a
// screen.
const MaxProblems = 20

// sentinels are the kinds a problem past MaxProblems is still kept for, one
// of each, so that errors.Is answers for every kind found.
var sentinels = []error{ErrRead, ErrMalformed, ErrUnknownAPIVersion, ErrDecode, ErrInvalid, ErrMissingReference, ErrTooLarge, ErrEmpty, ErrDuplicate}

// Problems gathers the problems of one load or check in the order found,
// keeping the first MaxProblems and counting the rest, so that input with
// a million bad objects costs bounded memory and a bounded message. The
// zero value is empty and ready to use.
type Problems struct {
	shown []error
	// hidden are problems past MaxProblems of a sentinel kind no kept
	// problem has (at most one per sentinel): unwrapped, never printed.
	hidden []error
	// more counts the problems past MaxProblems, hidden ones included.
	more int
}

// Add records a problem; nil is ignored.
func (p *Problems) Add(err error) {
	if err == nil {
		return
	}
	if len(p.shown) < MaxProblems {
		p.shown = append(p.shown, err)
		return
	}
	p.more++
	p.keepKind(err)
}

// keepKind holds err, unprinted, when its sentinel is not held yet.
func (p *Problems) keepKind(err error) {
	for _, s := range sentinels {
		if !errors.Is(err, s) {
			continue
		}
		for _, held := range [][]error{p.shown, p.hidden} {
			for _, e := range held {
				if errors.Is(e, s) {
					return
				}
			}
		}
		p.hidden = append(p.hidden, err)
		return
	}
}

// AddAll records the problems of q after p's own.
func (p *Problems) AddAll(q *Problems) {
	for _, e := range q.shown {
		p.Add(e)
	}
	p.more += q.more
	for _, e := range q.hidden {
		p.keepKind(e)
	}
}

// Len is the number of problems recorded, counted ones included.
func (p *Problems) Len() int { return len(p.shown) + p.more }

// insertAt moves the problems recorded from index at on to index mark
// (mark ≤ at), for a syntax error reported before what was found after
// its mark; problems pushed past MaxProblems are counted.
func (p *Problems) insertAt(mark, at int) {
	if at >= len(p.shown) || mark >= at {
		return
	}
	moved := append([]error(nil), p.shown[at:]...)
	rest := append([]error(nil), p.shown[mark:at]...)
	p.shown = append(append(p.shown[:mark], moved...), rest...)
}

// Err is nil without problems, the one problem alone, and otherwise an
// error joining them, one a line (as errors.Join), ending with the count of
// those left out.
func (p *Problems) Err() error {
	switch {
	case len(p.shown) == 0:
		return nil
	case p.more == 0:
		return errors.Join(p.shown...)
	}
	return &problemsError{shown: p.shown, hidden: p.hidden, more: p.more}
}

// JoinProblems is errors.Join bounded as Problems bounds it.
func JoinProblems(errs ...error) error {
	var p Problems
	for _, err := range errs {
		p.Add(err)
	}
	return p.Err()
}

// problemsError is more problems than MaxProblems.
type problemsError struct {
	shown, hidden []error
	more          int
}

func (e *problemsError) Error() string {
	var b strings.Builder
	for _, err := range e.shown {
		b.WriteString(err.Error())
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "... and %s more problems", thousands(e.more))
	return b.String()
}

func (e *problemsError) Unwrap() []error {
	return append(append([]error(nil), e.shown...), e.hidden...)
}

// thousands writes n with commas: 199,979.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
