package layering

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/karpsim/karpsim/"

// layer is each package's layer; see the package comment.
var layer = map[string]int{
	"apis": 0, "pricing": 0, "workloads": 0, "internal/clusterdump": 0, "internal/fields": 0, "internal/chromium": 0, "azure/internal/skudata": 0,
	"requirements": 1, "resources": 1, "budgets": 1, "manifests": 1, "repair": 1,
	"instancetypes": 2,
	"scheduling":    3, "drift": 3, "cloud": 3, "dra": 3, "azure": 3,
	"consolidation": 4, "optimize": 4, "kube": 4, "provider": 4,
	"snapshot": 5, "invariants": 5, "advise": 5,
	"controller": 6, "clusterautoscaler": 6,
	"simulator": 7,
	"plantest":  8, "sweep": 8, "advisor": 8, "conformance": 8, "kube/kubetest": 8, "internal/scenariogen": 8,
	"report":      9,
	"cmd/karpsim": 10, "examples": 10,
}

// core are the decision packages: no I/O, no manifests, no cloud.
var core = []string{"requirements", "resources", "repair", "instancetypes", "pricing", "scheduling", "dra", "budgets", "drift", "consolidation", "optimize", "advise", "invariants"}

// ioPackages are the standard packages that reach outside the process.
var ioPackages = []string{"os", "os/exec", "net", "net/http", "io/ioutil", "syscall"}

// layerOf is the layer of a package path relative to the module: its own,
// or its top folder's (drift/internal/… is drift's, examples/… examples').
func layerOf(t *testing.T, rel string) int {
	t.Helper()
	for p := rel; ; p = filepath.Dir(p) {
		if l, ok := layer[filepath.ToSlash(p)]; ok {
			return l
		}
		if p == "." || p == "/" {
			t.Fatalf("package %s has no layer: add it to the table and the package comment", rel)
		}
	}
}

func TestImportsFollowTheLayers(t *testing.T) {
	root := filepath.Join("..", "..")
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		name := d.Name()
		if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || rel == filepath.Join("internal", "layering") || nestedModule(path)) {
			return filepath.SkipDir
		}
		pkg, err := build.Default.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here
		}
		seen++
		rel = filepath.ToSlash(rel)
		own := layerOf(t, rel)
		for _, imp := range pkg.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				if slices.Contains(core, rel) && slices.Contains(ioPackages, imp) {
					t.Errorf("%s imports %s: the decision core does no I/O", rel, imp)
				}
				continue
			}
			if strings.HasPrefix(dep, rel+"/internal") {
				continue
			}
			if l := layerOf(t, dep); l >= own {
				t.Errorf("%s (layer %d) imports %s (layer %d): a package imports only lower layers", rel, own, dep, l)
			}
			if slices.Contains(core, rel) && (dep == "manifests" || dep == "cloud") {
				t.Errorf("%s imports %s: the decision core takes plain structs", rel, dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < len(layer) {
		t.Fatalf("read %d packages, fewer than the %d in the table", seen, len(layer))
	}
}

// nestedModule is true for a folder with a go.mod of its own (upstream/):
// a module apart, whose rules are its own.
func nestedModule(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}
