package apis

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestKubeletExpressions(t *testing.T) {
	m5 := KubeletVars{VCPUs: 2, MemoryMiB: 8192, DefaultENIs: 3, IPsPerENI: 10, MaxPods: 29}
	for _, tt := range []struct {
		expr string
		want int64
	}{
		{"min(110, vcpus * 8)", 16},
		{"memory_mib / 100", 81},
		{"vcpus * 30", 60},
		{"max_pods * 11", 319},
		{"default_enis * (ips_per_eni - 1) + 2", 29},
		{"-7 / 2", -3},
		{"-7 % 2", -1},
		{"- -3", 3},
		{"int(double(memory_mib) * 0.05)", 409},
		{"double(vcpus) * 1.5", 3},
		{"max(vcpus, 2.5)", 2},
		{"min(1.9, 4)", 1},
		{"max(max(1, 2), min(3, 4))", 3},
		{" 1e3 ", 1000},
		{"9223372036854775807", math.MaxInt64},
	} {
		e, err := ParseKubeletExpression(tt.expr)
		if err != nil {
			t.Errorf("%q: %v", tt.expr, err)
			continue
		}
		got, err := e.Eval(m5)
		if err != nil || got != tt.want {
			t.Errorf("%q = %d, %v; want %d", tt.expr, got, err, tt.want)
		}
	}
}

func TestKubeletExpressionErrors(t *testing.T) {
	parse := []struct{ expr, want string }{
		{"", "unexpected end of expression"},
		{"vcpus * 1.5", "do not mix"},
		{"1.5 % 2.0", "whole numbers"},
		{"instance_type", "unknown variable"},
		{"sqrt(4)", "unknown function"},
		{"min(1)", "takes 2 arguments"},
		{"vcpus > 2 ? 1 : 2", "unexpected"},
		{"vcpus == 2", "unexpected"},
		{"(1", "expected \")\""},
		{"1 2", "unexpected"},
		{"99999999999999999999", "64-bit"},
		{"1e999", "not a number"},
		{strings.Repeat("(", 40) + "1" + strings.Repeat(")", 40), "nested"},
		{strings.Repeat("1+", 600) + "1", "at most"},
	}
	for _, tt := range parse {
		_, err := ParseKubeletExpression(tt.expr)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrKubeletExpression) {
			t.Errorf("%q: %v, want an error with %q", tt.expr, err, tt.want)
		}
	}
	eval := []struct{ expr, want string }{
		{"1 / (vcpus - vcpus)", "division by zero"},
		{"1 % (vcpus - vcpus)", "division by zero"},
		{"9223372036854775807 + 1", "overflow"},
		{"-9223372036854775807 - 2", "overflow"},
		{"4611686018427387904 * 2", "overflow"},
		{"-(-9223372036854775807 - 1)", "overflow"},
		{"(-9223372036854775807 - 1) / -1", "overflow"},
		{"1.0 / 0.0", "does not fit"},
		{"int(1e300)", "does not fit"},
	}
	for _, tt := range eval {
		e, err := ParseKubeletExpression(tt.expr)
		if err != nil {
			t.Errorf("%q: %v", tt.expr, err)
			continue
		}
		if _, err := e.Eval(KubeletVars{VCPUs: 2}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error with %q", tt.expr, err, tt.want)
		}
	}
}

// FuzzKubeletExpression: any text parses or is refused without panicking,
// and what parses evaluates (or fails) the same way twice.
func FuzzKubeletExpression(f *testing.F) {
	for _, s := range []string{"min(110, vcpus * 8)", "memory_mib / 100", "-(1+2)*3 % 4", "double(vcpus) * 1.5", "1e3", "max(1, 2.5)", "((("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		e, err := ParseKubeletExpression(text)
		if err != nil {
			return
		}
		vars := KubeletVars{VCPUs: 96, MemoryMiB: 393216, DefaultENIs: 15, IPsPerENI: 50, MaxPods: 737}
		a, errA := e.Eval(vars)
		b, errB := e.Eval(vars)
		if a != b || (errA == nil) != (errB == nil) {
			t.Fatalf("%q: %d, %v then %d, %v", text, a, errA, b, errB)
		}
	})
}
