package disruption

import (
	"cmp"
	"slices"
	"strings"
)

// Command is what a disruption command does, as both sides are compared
// on it: the method that found it, the nodes it deletes and the NodeClaims
// it launches first, each "nodepool: type,type,..." with its instance-type
// options sorted.
type Command struct {
	Method       string
	Delete       []string
	Replacements []string
}

func replacement(pool string, types []string) string {
	types = slices.Clone(types)
	slices.Sort(types)
	return pool + ": " + strings.Join(types, ",")
}

func (c Command) normalize() Command {
	slices.Sort(c.Delete)
	slices.Sort(c.Replacements)
	return c
}

// String is the command on one line.
func (c Command) String() string {
	s := c.Method + " delete [" + strings.Join(c.Delete, " ") + "]"
	if len(c.Replacements) > 0 {
		s += " replace with [" + strings.Join(c.Replacements, "; ") + "]"
	}
	return s
}

func sortCommands(cmds []Command) []Command {
	slices.SortFunc(cmds, func(a, b Command) int { return cmp.Compare(a.String(), b.String()) })
	return cmds
}

// Outcome is the commands of one evaluation, as one string: "no command"
// when there are none.
func Outcome(cmds []Command) string {
	if len(cmds) == 0 {
		return "no command"
	}
	var lines []string
	for _, c := range cmds {
		lines = append(lines, c.String())
	}
	return strings.Join(lines, "\n")
}
