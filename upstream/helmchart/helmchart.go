package helmchart

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"sigs.k8s.io/yaml"
)

// Render renders the chart in dir as `helm template NAME dir --namespace
// NAMESPACE` would with values over the chart's own, and returns the
// objects, each as a map, sorted by kind and name.
func Render(dir, name, namespace string, values map[string]any) ([]map[string]any, error) {
	chart, err := loader.Load(dir)
	if err != nil {
		return nil, err
	}
	vals, err := chartutil.ToRenderValues(chart, values, chartutil.ReleaseOptions{Name: name, Namespace: namespace, IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(chart, vals)
	if err != nil {
		return nil, err
	}
	var objs []map[string]any
	for _, path := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasSuffix(path, ".yaml") {
			continue
		}
		docs, err := Split([]byte(files[path]))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		objs = append(objs, docs...)
	}
	Sort(objs)
	return objs, nil
}

// Split reads a multi-document YAML stream into maps, leaving out empty
// documents.
func Split(data []byte) ([]map[string]any, error) {
	var objs []map[string]any
	for _, doc := range strings.Split("\n"+string(data), "\n---") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			return nil, err
		}
		if len(obj) > 0 {
			objs = append(objs, obj)
		}
	}
	return objs, nil
}

// Sort orders objects by kind, then name.
func Sort(objs []map[string]any) {
	slices.SortFunc(objs, func(a, b map[string]any) int {
		return strings.Compare(key(a), key(b))
	})
}

func key(obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	return fmt.Sprint(obj["kind"], "/", meta["name"])
}
