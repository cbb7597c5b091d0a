package requirements

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

// fuzzValues splits a comma-separated value list; "" is no value at all.
func fuzzValues(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// FuzzRequirements builds two requirements on one key from arbitrary
// operators and values, as a NodePool or a node selector term states them,
// and holds them against the naive model: New refuses what the operator
// does not take with an error naming the key, and for what it accepts,
// Has, Len and Intersection agree with the model on every value involved,
// intersection commutes, Any is allowed, and NodeSelectorRequirements reads
// back as the same requirement. FromNodePool names the requirement's index
// in its errors and keeps minValues.
func FuzzRequirements(f *testing.F) {
	f.Add("In", "a,b", "NotIn", "b", "a", "k", 0)
	f.Add("Gt", "3", "Lt", "9", "5", "kubernetes.io/arch", 2)
	f.Add("Gte", "-9223372036854775808", "Lte", "9223372036854775807", "0", "k", 1)
	f.Add("Gt", "9223372036854775807", "Exists", "", "1", "failure-domain.beta.kubernetes.io/zone", 0)
	f.Add("NotIn", "1,2,3", "Gte", "1", "4", "k", 3)
	f.Add("DoesNotExist", "", "In", "x", "", "k", -1)
	f.Add("Lt", "0", "NotIn", "-1", "-2", "karpenter.k8s.aws/instance-cpu", 0)
	f.Add("In", "01,1", "Gte", "1", "01", "k", 0)
	f.Add("Between", "1", "In", "", "x", "k", 0)
	f.Fuzz(func(t *testing.T, op1, values1, op2, values2, probe, key string, minValues int) {
		start := time.Now()
		a, errA := New("k", corev1.NodeSelectorOperator(op1), fuzzValues(values1)...)
		b, errB := New("k", corev1.NodeSelectorOperator(op2), fuzzValues(values2)...)
		for _, err := range []error{errA, errB} {
			if err != nil && !strings.HasPrefix(err.Error(), `requirement "k": `) {
				t.Fatalf("error does not name the key: %v", err)
			}
		}
		if errA == nil && errB == nil {
			checkAgainstModel(t, a, b, op1, values1, op2, values2, probe)
		}

		// The same terms as a NodePool states them, under a fuzzed key.
		template := apis.NodeClaimTemplate{}
		template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{
			{Key: key, Operator: corev1.NodeSelectorOperator(op1), Values: fuzzValues(values1), MinValues: &minValues},
			{Key: key, Operator: corev1.NodeSelectorOperator(op2), Values: fuzzValues(values2)},
		}
		before := len(template.Spec.Requirements[0].Values)
		r, err := FromNodePool(template)
		switch {
		case errA != nil:
			if err == nil || !strings.HasPrefix(err.Error(), "requirements[0]: ") {
				t.Fatalf("FromNodePool error %v, want one about requirements[0]", err)
			}
		case errB != nil:
			if err == nil || !strings.HasPrefix(err.Error(), "requirements[1]: ") {
				t.Fatalf("FromNodePool error %v, want one about requirements[1]", err)
			}
		case err != nil:
			t.Fatalf("FromNodePool refused what New accepts: %v", err)
		default:
			got := r.Get(apis.NormalizeLabel(key))
			if got.MinValues() != max(minValues, 0) {
				t.Fatalf("minValues %d became %d (the other term has none)", minValues, got.MinValues())
			}
			if r.Len() != 1 || got.Key() != apis.NormalizeLabel(key) {
				t.Fatalf("two terms on %q gave %v", key, r)
			}
		}
		if len(template.Spec.Requirements[0].Values) != before {
			t.Fatal("FromNodePool changed its input")
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("took %v", took)
		}
	})
}

func checkAgainstModel(t *testing.T, a, b Requirement, op1, values1, op2, values2, probe string) {
	t.Helper()
	na := naiveOf(corev1.NodeSelectorOperator(op1), fuzzValues(values1))
	nb := naiveOf(corev1.NodeSelectorOperator(op2), fuzzValues(values2))
	ab, ba := a.Intersection(b), b.Intersection(a)
	want := na.intersect(nb)
	probes := append(append(fuzzValues(values1), fuzzValues(values2)...), probe, a.Any(), b.Any(), ab.Any())
	for _, v := range probes {
		if a.Has(v) != na.has(v) || b.Has(v) != nb.has(v) {
			t.Fatalf("%v / %v: Has(%q) = %v / %v, naive %v / %v", a, b, v, a.Has(v), b.Has(v), na.has(v), nb.has(v))
		}
		if ab.Has(v) != want.has(v) || ba.Has(v) != want.has(v) {
			t.Fatalf("(%v) ∩ (%v) = %v: Has(%q) = %v, naive %v", a, b, ab, v, ab.Has(v), want.has(v))
		}
	}
	if ab.Len() != want.length() {
		t.Fatalf("(%v) ∩ (%v) = %v: Len %d, naive %d", a, b, ab, ab.Len(), want.length())
	}
	if ab.String() != ba.String() {
		t.Fatalf("intersection does not commute: %v and %v", ab, ba)
	}
	if fast, slow := NewRequirements(a).IntersectsFast(NewRequirements(b)), naiveIntersects(na, nb); fast != slow {
		t.Fatalf("Intersects(%v, %v) = %v, naive %v", a, b, fast, slow)
	}
	for _, r := range []Requirement{a, b, ab} {
		if v := r.Any(); v != "" && !r.Has(v) {
			t.Fatalf("%v: Any() = %q, which it does not allow", r, v)
		}
		back, err := FromNodeSelectorRequirements(r.NodeSelectorRequirements()...)
		if err != nil {
			t.Fatalf("%v: its node selector requirements %v do not read back: %v", r, r.NodeSelectorRequirements(), err)
		}
		again := back.Get("k")
		if again.String() != r.String() || again.Len() != r.Len() {
			t.Fatalf("%v read back as %v", r, again)
		}
		for _, v := range probes {
			if again.Has(v) != r.Has(v) {
				t.Fatalf("%v read back as %v, which differs on %q", r, again, v)
			}
		}
	}
}
