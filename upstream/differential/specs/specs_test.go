package specs

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// inventory is the part of an inventory file checked here.
type inventory struct {
	Repo     string `json:"repo"`
	Upstream string `json:"upstream"`
	Commit   string `json:"commit"`
	Specs    []struct {
		Line int `json:"line"`
	} `json:"specs"`
}

// modules are the Go modules of the inventoried repositories.
var modules = map[string]string{
	"kubernetes-sigs/karpenter":  "sigs.k8s.io/karpenter",
	"aws/karpenter-provider-aws": "github.com/aws/karpenter-provider-aws",
}

// module is the directory and version of a required module.
func module(t *testing.T, path string) (dir, version string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", path).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", path, err)
	}
	dir, version, _ = strings.Cut(strings.TrimSpace(string(out)), " ")
	if dir == "" {
		t.Fatalf("module %s is not downloaded: run go mod download in upstream/", path)
	}
	return dir, version
}

// specLines are the lines of a Ginkgo file that start an It or an Entry.
func specLines(data []byte) map[int]bool {
	lines := map[int]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "It(") || strings.HasPrefix(l, "Entry(") {
			lines[n] = true
		}
	}
	return lines
}

func TestInventoryLinesAreUpstreamSpecs(t *testing.T) {
	root := filepath.Join("..", "..", "..", "conformance", "specs")
	dirs := map[string][2]string{}
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var inv inventory
		if err := yaml.Unmarshal(data, &inv); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		repo := inv.Repo
		if repo == "" {
			repo = "kubernetes-sigs/karpenter"
		}
		mod, ok := modules[repo]
		if !ok {
			t.Errorf("%s: repository %q has no module here", path, repo)
			return nil
		}
		if _, ok := dirs[mod]; !ok {
			dir, version := module(t, mod)
			dirs[mod] = [2]string{dir, version}
		}
		dir, version := dirs[mod][0], dirs[mod][1]
		if inv.Commit != version {
			t.Errorf("%s: names %s, but this module requires %s %s", path, inv.Commit, mod, version)
			return nil
		}
		src, err := os.ReadFile(filepath.Join(dir, inv.Upstream))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		upstream := specLines(src)
		listed := map[int]bool{}
		for _, s := range inv.Specs {
			listed[s.Line] = true
			if !upstream[s.Line] {
				t.Errorf("%s: line %d of %s %s starts no It or Entry", path, s.Line, inv.Upstream, version)
			}
		}
		for n := range upstream {
			if !listed[n] {
				t.Errorf("%s: the It or Entry at line %d of %s %s is not listed", path, n, inv.Upstream, version)
			}
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatalf("no inventory under %s", root)
	}
	t.Logf("%d inventory files checked against %v", checked, dirs)
}
