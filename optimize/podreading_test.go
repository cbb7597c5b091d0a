package optimize

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Pods are compared by their spec's protobuf encoding (podReading), which
// is only sound while the encoding covers every field: every exported
// field of PodSpec, and of the API types it holds, has a protobuf tag. A
// k8s.io/api upgrade that adds a field without one fails here.
func TestPodSpecEncodesEveryField(t *testing.T) {
	seen := map[reflect.Type]bool{}
	// These encode themselves, by their value: a quantity as its text,
	// a time as seconds and nanoseconds.
	custom := map[reflect.Type]bool{reflect.TypeFor[resource.Quantity](): true, reflect.TypeFor[metav1.Time](): true, reflect.TypeFor[metav1.MicroTime](): true}
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map || typ.Kind() == reflect.Array {
			if typ.Kind() == reflect.Map {
				walk(typ.Key(), path+"[key]")
			}
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] || !strings.HasPrefix(typ.PkgPath(), "k8s.io/") || custom[typ] {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			if tag := f.Tag.Get("protobuf"); tag == "" || tag == "-" {
				t.Errorf("%s.%s (%s) has no protobuf encoding", path, f.Name, typ)
				continue
			}
			walk(f.Type, path+"."+f.Name)
		}
	}
	walk(reflect.TypeFor[corev1.PodSpec](), "spec")
	if len(seen) < 20 {
		t.Fatalf("walked only %d types", len(seen))
	}
}

// Pods read alike exactly when their namespace, labels, annotations and
// spec are equal; their names and other metadata do not count.
func TestPodReadingSame(t *testing.T) {
	pod := func(name string, change func(*corev1.Pod)) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + "name", Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{NodeSelector: map[string]string{"a": "1", "b": "2", "c": "3"}, Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}}}}}}
		if change != nil {
			change(p)
		}
		return p
	}
	base := readingOf(pod("a", nil), nil)
	for _, c := range []struct {
		name   string
		change func(*corev1.Pod)
		same   bool
	}{
		{"another name and uid", func(p *corev1.Pod) { p.UID = "other" }, true},
		{"the node selector built in another order", func(p *corev1.Pod) {
			p.Spec.NodeSelector = map[string]string{}
			for _, k := range []string{"c", "a", "b"} {
				p.Spec.NodeSelector[k] = map[string]string{"a": "1", "b": "2", "c": "3"}[k]
			}
		}, true},
		{"another namespace", func(p *corev1.Pod) { p.Namespace = "other" }, false},
		{"another label", func(p *corev1.Pod) { p.Labels["tier"] = "x" }, false},
		{"an annotation", func(p *corev1.Pod) { p.Annotations = map[string]string{"k": "v"} }, false},
		{"another request", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2")
		}, false},
		{"another selector value", func(p *corev1.Pod) { p.Spec.NodeSelector["a"] = "2" }, false},
		{"a toleration", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
		}, false},
		{"a priority class", func(p *corev1.Pod) { p.Spec.PriorityClassName = "high" }, false},
	} {
		read := readingOf(pod("b", c.change), nil)
		if got := read.same(&base); got != c.same {
			t.Errorf("%s: same %v, want %v", c.name, got, c.same)
		}
	}
}
