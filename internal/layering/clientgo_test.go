package layering

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOnlyKubeLinksClientGo holds client-go out of every program that does
// not use a real cluster: only kube (and its fakes, kube/kubetest) import
// it, and a package links it only by importing kube.
func TestOnlyKubeLinksClientGo(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	list := exec.Command(goTool, "list", "-f", `{{.ImportPath}} {{join .Imports ","}} {{join .Deps ","}}`, "./...")
	list.Dir = filepath.Join("..", "..")
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	linked := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Split(line, " ")
		pkg := strings.TrimPrefix(fields[0], module)
		imports, deps := strings.Split(fields[1], ","), strings.Split(fields[2], ",")
		isKube := pkg == "kube" || strings.HasPrefix(pkg, "kube/")
		if !isKube && slices.ContainsFunc(imports, isClientGo) {
			t.Errorf("%s imports k8s.io/client-go: only kube may (import kube instead)", pkg)
		}
		if slices.ContainsFunc(deps, isClientGo) {
			linked[pkg] = true
			if !isKube && !slices.Contains(deps, module+"kube") {
				t.Errorf("%s links k8s.io/client-go without importing kube", pkg)
			}
		}
	}
	if !linked["kube"] {
		t.Fatal("kube does not link client-go: the check looks at the wrong list")
	}
	for _, pkg := range []string{"apis", "manifests", "scheduling", "consolidation", "cloud", "snapshot", "controller", "simulator", "plantest"} {
		if linked[pkg] {
			t.Errorf("%s links k8s.io/client-go: importing it must not", pkg)
		}
	}
}

func isClientGo(path string) bool {
	return path == "k8s.io/client-go" || strings.HasPrefix(path, "k8s.io/client-go/")
}
