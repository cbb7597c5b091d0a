package dra

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// matcher is one CEL selector, compiled: whether a device satisfies it.
type matcher func(d Device) bool

// The forms of CEL expression karpsim evaluates, joined by &&: the ones
// DeviceClasses and requests use to pick devices by driver, attribute and
// capacity. Anything else is refused with the expression, so that a
// selection karpsim cannot evaluate never passes for one it can.
var (
	celDriver    = regexp.MustCompile(`^device\.driver\s*(==|!=)\s*("[^"]*"|'[^']*')$`)
	celAttribute = regexp.MustCompile(`^device\.attributes\[("[^"]*"|'[^']*')\]\.([A-Za-z][A-Za-z0-9_]*)\s*(==|!=)\s*(.+)$`)
	celCapacity  = regexp.MustCompile(`^device\.capacity\[("[^"]*"|'[^']*')\]\.([A-Za-z][A-Za-z0-9_]*)\.compareTo\(quantity\(("[^"]*"|'[^']*')\)\)\s*(==|!=|>=|<=|>|<)\s*(-?[0-9]+)$`)
)

// celForms lists them for error messages.
const celForms = `device.driver == "…", device.attributes["domain"].name == value, ` +
	`device.capacity["domain"].name.compareTo(quantity("…")) >= n, true, joined by &&`

// compileCEL compiles one selector expression.
func compileCEL(expr string) (matcher, error) {
	var parts []matcher
	for _, term := range strings.Split(expr, "&&") {
		term = strings.TrimSpace(term)
		for strings.HasPrefix(term, "(") && strings.HasSuffix(term, ")") {
			term = strings.TrimSpace(term[1 : len(term)-1])
		}
		m, err := compileTerm(term)
		if err != nil {
			return nil, err
		}
		parts = append(parts, m)
	}
	return func(d Device) bool {
		for _, m := range parts {
			if !m(d) {
				return false
			}
		}
		return true
	}, nil
}

func compileTerm(term string) (matcher, error) {
	if term == "true" {
		return func(Device) bool { return true }, nil
	}
	if m := celDriver.FindStringSubmatch(term); m != nil {
		want, eq := unquote(m[2]), m[1] == "=="
		return func(d Device) bool { return (d.Driver == want) == eq }, nil
	}
	if m := celAttribute.FindStringSubmatch(term); m != nil {
		domain, name, eq := unquote(m[1]), m[2], m[3] == "=="
		want, err := literal(strings.TrimSpace(m[4]))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", term, err)
		}
		return func(d Device) bool {
			v, ok := d.Attributes[name]
			return d.Driver == domain && ok && (v == want) == eq
		}, nil
	}
	if m := celCapacity.FindStringSubmatch(term); m != nil {
		domain, name, op := unquote(m[1]), m[2], m[4]
		q, err := resource.ParseQuantity(unquote(m[3]))
		if err != nil {
			return nil, fmt.Errorf("%q: quantity: %w", term, err)
		}
		n, _ := strconv.Atoi(m[5])
		return func(d Device) bool {
			c, ok := d.Capacity[name]
			return d.Driver == domain && ok && compare(c.Cmp(q), op, n)
		}, nil
	}
	return nil, fmt.Errorf("%q is not an expression karpsim evaluates (it evaluates %s)", term, celForms)
}

func compare(got int, op string, n int) bool {
	switch op {
	case "==":
		return got == n
	case "!=":
		return got != n
	case ">=":
		return got >= n
	case "<=":
		return got <= n
	case ">":
		return got > n
	default:
		return got < n
	}
}

func unquote(s string) string { return s[1 : len(s)-1] }

// literal reads a CEL string, integer or boolean literal.
func literal(s string) (any, error) {
	switch {
	case len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\''):
		return unquote(s), nil
	case s == "true" || s == "false":
		return s == "true", nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s is not a string, integer or boolean literal", s)
	}
	return n, nil
}
